import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type ConformanceConfig } from './config';
import { formatReport } from './report';
import { REFUSED_TOKEN, startReferenceServer, type ReferenceServerFixture } from './reference-server-fixture';
import { runServerConformance } from './run-server-conformance';

let server: ReferenceServerFixture;

beforeAll(async () => {
  server = await startReferenceServer();
});

afterAll(async () => {
  await server.stop();
});

const withInvalidToken: ConformanceConfig = {
  ...DEFAULT_CONFIG,
  users: [{ token: 'conformance-user-1', invalidToken: REFUSED_TOKEN }, { token: 'conformance-user-2' }],
};

describe('the reference server', () => {
  it('passes every required check, auth included', async () => {
    const summary = await runServerConformance({ url: server.url, config: withInvalidToken });
    const failures = summary.results.filter((r) => r.required && r.status !== 'pass');
    expect(failures, formatReport(summary)).toEqual([]);
    expect(summary.ok).toBe(true);
    expect(summary.passed).toBe(summary.results.filter((r) => r.required).length);
  });

  it('passes with the default config, reporting the auth check as skipped with why', async () => {
    const summary = await runServerConformance({ url: server.url, only: 'auth/,connect/connected' });
    expect(summary.results.map((r) => [r.name, r.status])).toEqual([
      ['connect/connected', 'pass'],
      ['auth/invalid-token', 'skip'],
    ]);
    expect(summary.results[1]!.message).toMatch(/no invalidToken/);
    expect(summary.ok).toBe(true);
  });
});
