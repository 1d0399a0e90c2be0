import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCliArgs } from './cli-args';
import { cliServerConfig, MAX_DEFAULT_ROOM_PROCESSES, mutatorsModuleOf, roomProcessesFor } from './cli-config';

const dir = mkdtempSync(join(tmpdir(), 'roomsync-cli-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const config = (argv: string[], env: NodeJS.ProcessEnv = {}) => cliServerConfig(parseCliArgs(argv), env, '/app');

describe('cliServerConfig', () => {
  it('development: dev auth with a warning, loopback origins, no app mutators (the conformance module) in workers', () => {
    const c = config([]);
    expect(c.warnings[0]).toMatch(/dev auth/);
    expect(c.options.allowLoopbackOrigins).toBe(true);
    expect(c.options.allowAnonymous).toBe(false);
    expect(c.mutatorsModule).toEqual({ url: new URL('./conformance-mutators.ts', import.meta.url).href, exportName: 'conformanceMutators' });
    expect(c.adminKey).toBeUndefined();
    expect(c.options.presence).toBeUndefined();
    expect(config(['--presence-grace-ms', '3000']).options.presence).toEqual({ graceMs: 3000 });
    expect(config(['--no-presence']).options.presence).toBe(false);
    expect(c.options.spinWait).toBeUndefined();
    expect(config(['--no-spin-wait']).options.spinWait).toBe(false);
  });

  it('production refuses dev auth and loopback origins', () => {
    expect(() => config(['--production'])).toThrow(/in production choose --auth jwt/);
    expect(() => config([], { NODE_ENV: 'production' })).toThrow(/in production/);
    const c = config(['--production', '--auth', 'jwt'], { ROOMSYNC_JWT_SECRET: 'shh-a-secret-long-enough-for-hs256' });
    expect(c.options.allowLoopbackOrigins).toBe(false);
    expect(c.warnings).toEqual([]);
  });

  it('takes secrets from env vars or files, and warns when the admin key is on the command line', () => {
    writeFileSync(join(dir, 'admin.key'), 'from-file\n');
    expect(config(['--admin-key-file', join(dir, 'admin.key')]).adminKey).toEqual({ key: 'from-file', from: 'file' });
    expect(config([], { ROOMSYNC_ADMIN_KEY: 'from-env' }).adminKey).toEqual({ key: 'from-env', from: 'env' });
    const argv = config(['--admin-key', 'visible']);
    expect(argv.adminKey).toEqual({ key: 'visible', from: 'argv' });
    expect(argv.warnings.some((w) => w.includes('visible to every user'))).toBe(true);
    expect(() => config(['--auth', 'jwt'])).toThrow(/needs exactly one of/);
    expect(() => config(['--auth', 'jwt', '--jwt-secret-file', join(dir, 'missing')])).toThrow(/Cannot read the JWT secret/);
  });

  it('resolves --mutators FILE[#export] against the working directory', () => {
    expect(mutatorsModuleOf('lib/m.js#appMutators', '/app')).toEqual({ url: 'file:///app/lib/m.js', exportName: 'appMutators' });
    expect(mutatorsModuleOf('/abs/m.js', '/app')).toEqual({ url: 'file:///abs/m.js', exportName: 'mutators' });
  });
});

describe('roomProcessesFor', () => {
  const count = (args: string[], postgres = false, cores = 4) => roomProcessesFor(parseCliArgs(args), postgres, cores);

  it('serves rooms from max(2, cores) processes on SQLite, up to a bound', () => {
    expect(count([], false, 1)).toBe(2);
    expect(count(['--data-dir', 'd'], false, 4)).toBe(4);
    expect(count(['--data-dir', 'd'], false, 64)).toBe(MAX_DEFAULT_ROOM_PROCESSES);
  });

  it('keeps rooms in this process on PostgreSQL, in memory, or when room workers are asked for', () => {
    expect(count(['--data-dir', 'd'], true)).toBe(0);
    expect(count(['--memory'])).toBe(0);
    expect(count(['--data-dir', 'd', '--room-workers', '2'])).toBe(0);
  });

  it('takes the number given', () => {
    expect(count(['--data-dir', 'd', '--room-processes', '3'])).toBe(3);
    expect(count(['--data-dir', 'd', '--room-processes', '0'])).toBe(0);
    expect(count(['--postgres', 'postgres://x/y', '--room-processes', '2'], true)).toBe(2);
  });
});
