import { describe, expect, it } from 'vitest';
import { parseCliArgs } from './cli-args';

describe('parseCliArgs', () => {
  it('has defaults', () => {
    expect(parseCliArgs([])).toMatchObject({ port: 8080, host: '127.0.0.1', dataDir: './data', requireRooms: false, logLevel: 'info', synchronous: 'FULL' });
  });

  it('reads every option, with or without =', () => {
    expect(
      parseCliArgs([
        '--port', '0', '--host=0.0.0.0', '--data-dir', '/tmp/d', '--admin-key', 'k', '--require-rooms',
        '--log-level', 'debug', '--static-dir', 'dist', '--max-frame-bytes=2048', '--max-mutations-per-push', '5',
        '--synchronous', 'normal',
      ]),
    ).toEqual({
      port: 0, host: '0.0.0.0', dataDir: '/tmp/d', adminKey: 'k', requireRooms: true, logLevel: 'debug',
      staticDir: 'dist', maxFrameBytes: 2048, maxMutationsPerPush: 5, synchronous: 'NORMAL', help: false,
    });
    expect(parseCliArgs(['--memory']).dataDir).toBeUndefined();
  });

  it('refuses unknown options and bad values', () => {
    expect(() => parseCliArgs(['--nope'])).toThrow('Unknown option --nope');
    expect(() => parseCliArgs(['--port', '70000'])).toThrow(/--port must be an integer/);
    expect(() => parseCliArgs(['--port'])).toThrow('--port needs a value');
    expect(() => parseCliArgs(['--log-level', 'loud'])).toThrow(/--log-level/);
  });
});
