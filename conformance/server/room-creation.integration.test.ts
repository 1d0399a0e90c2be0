import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type ConformanceConfig } from './config';
import { formatReport } from './report';
import { startReferenceServer, type ReferenceServerFixture } from './reference-server-fixture';
import { runServerConformance } from './run-server-conformance';

const ADMIN_KEY = 'conformance-admin-key';
let server: ReferenceServerFixture;

beforeAll(async () => {
  server = await startReferenceServer({ requireRooms: true, adminKey: ADMIN_KEY });
});

afterAll(async () => {
  await server.stop();
});

const SOME_CHECKS = 'connect/connected,push/own-group-only,catch-up/,convergence/';

describe('a server that needs rooms created first', () => {
  it('passes when the config says how to create a room', async () => {
    const config: ConformanceConfig = {
      ...DEFAULT_CONFIG,
      roomCreation: { method: 'POST', url: `${server.adminURL}/rooms`, headers: { authorization: `Bearer ${ADMIN_KEY}` }, body: { roomID: '{roomID}' } },
      convergence: { ...DEFAULT_CONFIG.convergence, runs: 3 },
    };
    const summary = await runServerConformance({ url: server.url, config, only: SOME_CHECKS });
    expect(summary.failed, formatReport(summary)).toBe(0);
    expect(summary.passed).toBe(4);
  });

  it('fails with RoomNotFound when the config does not, and a wrong admin key fails room creation visibly', async () => {
    const without = await runServerConformance({ url: server.url, only: 'connect/connected' });
    expect(without.results[0]).toMatchObject({ status: 'fail' });
    expect(without.results[0]!.actual).toMatch(/"RoomNotFound"/);

    const wrongKey: ConformanceConfig = {
      ...DEFAULT_CONFIG,
      roomCreation: { method: 'POST', url: `${server.adminURL}/rooms`, headers: { authorization: 'Bearer nope' }, body: { roomID: '{roomID}' } },
    };
    const refused = await runServerConformance({ url: server.url, config: wrongKey, only: 'connect/connected' });
    expect(refused.results[0]).toMatchObject({ status: 'fail', expected: 'a 2xx answer' });
    expect(refused.results[0]!.actual).toMatch(/^HTTP 401/);
  });
});
