import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_CONFIG, parseConfigText, resolveConfig } from './config';

describe('conformance config', () => {
  it('defaults to what the reference server needs: no room creation, any tokens, the standard mutator names', () => {
    expect(resolveConfig({})).toEqual(DEFAULT_CONFIG);
    expect(DEFAULT_CONFIG.roomCreation).toBeNull();
    expect(DEFAULT_CONFIG.mutators).toEqual({ put: 'put', del: 'del', increment: 'increment' });
  });

  it('fills in what a file leaves out', () => {
    const config = parseConfigText(
      JSON.stringify({
        timeoutMs: 2000,
        roomCreation: { method: 'POST', url: 'http://h/rooms', body: { id: '{roomID}' } },
        users: [{ token: 't1', invalidToken: 'bad' }],
        mutators: { increment: 'inc' },
        convergence: { runs: 3, seed: 42 },
      }),
    );
    expect(config.timeoutMs).toBe(2000);
    expect(config.roomCreation).toEqual({ method: 'POST', url: 'http://h/rooms', body: { id: '{roomID}' } });
    expect(config.mutators).toEqual({ put: 'put', del: 'del', increment: 'inc' });
    expect(config.convergence).toEqual({ ...DEFAULT_CONFIG.convergence, runs: 3, seed: 42 });
    expect(config.users).toEqual([{ token: 't1', invalidToken: 'bad' }]);
  });

  it('refuses what it does not understand, saying where', () => {
    expect(() => parseConfigText('{"timeoutMs": -1}')).toThrow(ConfigError);
    expect(() => parseConfigText('{"timeoutMs": -1}')).toThrow(/at \/timeoutMs/);
    expect(() => parseConfigText('{"users": []}')).toThrow(/at \/users/);
    expect(() => parseConfigText('{"tokens": {}}')).toThrow(ConfigError);
    expect(() => parseConfigText('{not json')).toThrow(/not JSON/);
  });

  it('accepts the example of conformance/README.md', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const example = /## Config file[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const config = parseConfigText(example!);
    expect(config.users[0]).toEqual({ token: 'alice-token', invalidToken: 'not-a-token' });
    expect(config.convergence.seed).toBe(42);
  });
});
