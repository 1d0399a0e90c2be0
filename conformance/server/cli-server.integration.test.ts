import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { killChildServers, startChildServer } from '../../server/test-support/child-server';
import { lastLine, runCli } from '../shared/run-cli';

const SECRET = 'conformance-jwt-secret-long-enough-for-hs256';
const dir = mkdtempSync(join(tmpdir(), 'roomsync-conformance-cli-'));
afterAll(async () => {
  await killChildServers();
  rmSync(dir, { recursive: true, force: true });
});

const sign = (sub: string, secret = SECRET) =>
  new SignJWT({ sub }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(secret));

describe('the server conformance suite against the reference server CLI (a real process)', () => {
  it('passes with default flags', async () => {
    const server = await startChildServer(['--memory', '--log-level', 'error']);
    const run = await runCli('conformance/server/cli.ts', ['--server', server.url]);
    expect(lastLine(run.stderr), run.stderr).toMatch(/^\d+ passed, 0 failed$/);
    expect(run.code).toBe(0);
    expect(await server.stop('SIGTERM')).toBe(0);
  }, 120_000);

  it('passes with --auth jwt, given a config with signed tokens (and one signed with another secret that must be refused)', async () => {
    const server = await startChildServer(['--memory', '--log-level', 'error', '--auth', 'jwt'], { env: { ROOMSYNC_JWT_SECRET: SECRET } });
    const config = join(dir, 'jwt.json');
    writeFileSync(config, JSON.stringify({ users: [{ token: await sign('user-1'), invalidToken: await sign('user-1', `${SECRET}-other`) }, { token: await sign('user-2') }] }));
    const run = await runCli('conformance/server/cli.ts', ['--server', server.url, '--config', config, '--json']);
    expect(lastLine(run.stderr), run.stderr).toMatch(/^\d+ passed, 0 failed$/);
    const summary = JSON.parse(run.stdout) as { results: { name: string; status: string }[] };
    expect(summary.results.find((r) => r.name === 'auth/invalid-token')?.status).toBe('pass');
    expect(run.code).toBe(0);
    expect(await server.stop('SIGTERM')).toBe(0);
  }, 120_000);
});
