import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastLine, runCli as runSharedCli } from '../shared/run-cli';
import { startProxy } from './broken/mitm-proxy';
import { acceptAnyVersion } from './broken/variants';
import { startReferenceServer, type ReferenceServerFixture } from './reference-server-fixture';

const runCli = (args: readonly string[]) => runSharedCli('conformance/server/cli.ts', args);

let server: ReferenceServerFixture;

beforeAll(async () => {
  server = await startReferenceServer();
});

afterAll(async () => {
  await server.stop();
});

describe('npm run conformance', () => {
  it('exits 0 with the JSON summary on stdout and the report ending in "N passed, N failed" on stderr', async () => {
    const { code, stdout, stderr } = await runCli(['--server', server.url, '--only', 'connect/connected,optional/pong', '--json']);
    expect(code, stderr).toBe(0);
    const summary = JSON.parse(stdout) as { passed: number; failed: number; ok: boolean; results: Array<{ name: string }> };
    expect(summary).toMatchObject({ passed: 1, failed: 0, ok: true });
    expect(summary.results.map((r) => r.name)).toEqual(['connect/connected', 'optional/pong-latency']);
    expect(stderr).toContain('Optional checks');
    expect(lastLine(stderr)).toBe('1 passed, 0 failed');
  });

  it('exits 1 and shows what was expected when a required check fails', async () => {
    const proxy = await startProxy(server.url, acceptAnyVersion());
    try {
      const { code, stdout, stderr } = await runCli(['--server', proxy.url, '--only', 'connect/version-not-supported']);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toContain('✗ connect/version-not-supported');
      expect(stderr).toMatch(/expected: \["error", "VersionNotSupported"/);
      expect(lastLine(stderr)).toBe('0 passed, 1 failed');
    } finally {
      await proxy.close();
    }
  });

  it('exits 2 with the usage on a bad command line', async () => {
    const { code, stderr } = await runCli(['--server', 'http://nope']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/ws:\/\/ or wss:\/\//);
    expect(stderr).toContain('Usage: roomsync-conformance --server');
    const noMatch = await runCli(['--server', server.url, '--only', 'no-such-check']);
    expect(noMatch.code).toBe(2);
    expect(noMatch.stderr).toMatch(/matches no check/);
  });
});
