import { describe, expect, it } from 'vitest';
import { parseCliArgs, UsageError } from './cli-args';

describe('conformance CLI arguments', () => {
  it('reads --server, --config, --json and --only', () => {
    expect(parseCliArgs(['--server', 'ws://127.0.0.1:8080', '--config', 'c.json', '--json', '--only', 'push/'])).toEqual({
      server: 'ws://127.0.0.1:8080',
      moreServers: [],
      configFile: 'c.json',
      json: true,
      only: 'push/',
    });
    expect(parseCliArgs(['--server=wss://example.com'])).toEqual({ server: 'wss://example.com', moreServers: [], configFile: undefined, json: false, only: undefined });
    expect(parseCliArgs(['--server', 'ws://a:1', '--server', 'ws://b:2', '--server', 'ws://c:3'])).toMatchObject({ server: 'ws://a:1', moreServers: ['ws://b:2', 'ws://c:3'] });
    expect(() => parseCliArgs(['--server', 'ws://a:1', '--server', 'http://b'])).toThrow(UsageError);
  });

  it('answers --help and --list', () => {
    expect(parseCliArgs(['--help'])).toBe('help');
    expect(parseCliArgs(['--list'])).toBe('list');
  });

  it('refuses a missing or non-WebSocket server and unknown options', () => {
    expect(() => parseCliArgs([])).toThrow(new UsageError('--server is required'));
    expect(() => parseCliArgs(['--server', 'http://x'])).toThrow(UsageError);
    expect(() => parseCliArgs(['--server', 'ws://x', '--verbose'])).toThrow(UsageError);
  });
});
