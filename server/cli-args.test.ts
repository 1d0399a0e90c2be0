import { describe, expect, it } from 'vitest';
import { parseCliArgs } from './cli-args';

describe('parseCliArgs', () => {
  it('has defaults', () => {
    expect(parseCliArgs([])).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: './data',
      requireRooms: false,
      logLevel: 'info',
      synchronous: 'FULL',
      production: false,
      auth: { kind: 'dev' },
      allowAnonymous: false,
      allowedOrigins: [],
      limits: {},
      presence: true,
      spinWait: true,
    });
    expect(parseCliArgs(['--no-spin-wait']).spinWait).toBe(false);
    expect(parseCliArgs(['--no-presence', '--presence-grace-ms', '2500'])).toMatchObject({ presence: false, limits: { presenceGraceMs: 2500 } });
  });

  it('reads every option, with or without =', () => {
    expect(
      parseCliArgs([
        '--port', '0', '--host=0.0.0.0', '--data-dir', '/tmp/d', '--admin-key-file', 'k.txt', '--require-rooms',
        '--log-level', 'debug', '--static-dir', 'dist', '--max-frame-bytes=2048', '--max-mutations-per-push', '5',
        '--synchronous', 'normal', '--production', '--auth', 'jwt', '--jwt-secret-file', 's.txt', '--jwt-user-claim', 'uid',
        '--jwt-audience', 'app', '--jwt-room-claim', 'rooms', '--allow-anonymous', '--allowed-origins', 'https://a.example, https://b.example',
        '--mutators', 'm.js#appMutators', '--room-workers', '3', '--max-room-bytes', '1000', '--max-rooms', '7', '--idle-timeout-ms', '9000',
        '--trusted-proxies', '127.0.0.1, ::1', '--max-connections-per-address', '50', '--new-clients-per-user', '30',
      ]),
    ).toMatchObject({
      port: 0, host: '0.0.0.0', dataDir: '/tmp/d', adminKeyFile: 'k.txt', requireRooms: true, logLevel: 'debug',
      staticDir: 'dist', maxFrameBytes: 2048, maxMutationsPerPush: 5, synchronous: 'NORMAL', production: true,
      auth: { kind: 'jwt' }, jwt: { secretFile: 's.txt', userClaim: 'uid', audience: 'app', roomClaim: 'rooms' },
      allowAnonymous: true, allowedOrigins: ['https://a.example', 'https://b.example'], mutators: 'm.js#appMutators', roomWorkers: 3,
      trustedProxies: ['127.0.0.1', '::1'],
      limits: { maxRoomBytes: 1000, maxRooms: 7, idleTimeoutMs: 9000, maxConnectionsPerAddress: 50, newClientsPerUser: 30 },
    });
    expect(parseCliArgs(['--memory']).dataDir).toBeUndefined();
    expect(parseCliArgs(['--postgres', 'postgres://u@db:5432/rooms', '--pg-pool-size', '4'])).toMatchObject({ postgres: 'postgres://u@db:5432/rooms', pgPoolSize: 4, localStorageGiven: false });
    expect(() => parseCliArgs(['--postgres', 'mysql://x'])).toThrow(/postgres:\/\//);
    expect(() => parseCliArgs(['--postgres', 'postgres://x', '--data-dir', 'd'])).toThrow(/Choose one storage/);
    expect(parseCliArgs(['--auth', 'webhook', 'https://app.example/auth']).auth).toEqual({ kind: 'webhook', url: 'https://app.example/auth' });
  });

  it('refuses unknown options and bad values', () => {
    expect(() => parseCliArgs(['--nope'])).toThrow('Unknown option --nope');
    expect(() => parseCliArgs(['--port', '70000'])).toThrow(/--port must be an integer/);
    expect(() => parseCliArgs(['--port'])).toThrow('--port needs a value');
    expect(() => parseCliArgs(['--log-level', 'loud'])).toThrow(/--log-level/);
    expect(() => parseCliArgs(['--auth', 'magic'])).toThrow(/--auth must be/);
    expect(() => parseCliArgs(['--auth', 'webhook'])).toThrow(/needs the URL/);
    expect(() => parseCliArgs(['--trusted-proxies', '10.0.0.0/8'])).toThrow(/--trusted-proxies takes IP addresses/);
    expect(parseCliArgs(['--trusted-proxies', '[::1],10.0.0.5']).trustedProxies).toEqual(['[::1]', '10.0.0.5']);
    // Longer than a timer can wait: Node would fire it after 1 ms.
    for (const flag of ['--mutator-timeout-ms', '--idle-timeout-ms', '--presence-grace-ms']) {
      expect(() => parseCliArgs([flag, '9000000000'])).toThrow(`${flag} must be an integer from`);
      expect(parseCliArgs([flag, '2147483647']).limits).not.toEqual({});
    }
    expect(() => parseCliArgs(['--room-processes', '2', '--room-workers', '1'])).toThrow('Choose --room-processes or --room-workers');
  });
});
