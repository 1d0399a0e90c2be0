import { describe, expect, it } from 'vitest';
import { wrapSocketConstructor } from './broken/socket-wrappers';
import { runScenario } from './engine/run-scenario';
import { capabilities as ourCapabilities, createClient, type ClientFactory } from './factory';
import { formatResult } from './report';
import { runClientConformance } from './run-client-conformance';
import { allScenarios } from './scenarios/index';
import type { SocketConstructor } from '../../src/connection/socket';

/** Scenarios a client with none of the extras cannot run, each with why. */
const SKIPPED_WITHOUT_EXTRAS = {
  'auth/retry-cap-then-reconnect': 'needs a reconnect() method',
  'app/disconnect-reconnect': 'needs a disconnect() method; and a reconnect() method',
  'recovery/push-under-other-group': expect.stringMatching(/^needs a local store shared by two clients of one process/),
  'recovery/pull-timeout': expect.stringMatching(/^needs a local store shared by two clients of one process/),
  'recovery/unknown-group-disabled': expect.stringMatching(/^needs a local store shared by two clients of one process/),
};

describe('our client through the public API only (global fake clock, real WebSocket on loopback)', () => {
  it.each(allScenarios.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const result = await runScenario(scenario, { factory: createClient, capabilities: ourCapabilities, api: 'public' });
    expect(result.status, formatResult(result).join('\n')).toBe('passed');
    expect(result.unchecked).toBeUndefined();
  });

  it('as a client with none of the extras: every scenario that needs none passes, the others are skipped with the reason', async () => {
    const summary = await runClientConformance({ factory: createClient, capabilities: [], api: 'public' });
    const failures = summary.results.filter((r) => r.status === 'failed').flatMap(formatResult);
    expect(failures.join('\n')).toBe('');
    const skipped = Object.fromEntries(summary.results.filter((r) => r.status === 'skipped').map((r) => [r.name, r.skipReason]));
    expect(skipped).toEqual(SKIPPED_WITHOUT_EXTRAS);
    expect(summary.passed).toBe(allScenarios.length - Object.keys(SKIPPED_WITHOUT_EXTRAS).length);
  });
});

/** Our client built while the global WebSocket is wrapped: broken from outside with no injected environment. */
const withGlobalSocket =
  (wrap: (Base: SocketConstructor) => SocketConstructor): ClientFactory =>
  (options) => {
    const global = globalThis as { WebSocket?: SocketConstructor };
    const platform = global.WebSocket!;
    global.WebSocket = wrap(platform);
    try {
      return createClient(options);
    } finally {
      global.WebSocket = platform;
    }
  };

describe('the public-API path fails a broken client', () => {
  it.each([
    ['never pings', withGlobalSocket((Base) => wrapSocketConstructor(Base, { send: (text) => (text.startsWith('["ping"') ? null : text) })), 'ping/quiet-socket'],
    ['ignores its cookie', withGlobalSocket((Base) => wrapSocketConstructor(Base, { url: (url) => url.replace(/([?&]baseCookie=)[^&]*/, '$1') })), 'handshake/reconnect-params'],
  ] as const)('a client that %s fails %s', async (_what, factory, name) => {
    const result = await runScenario(allScenarios.find((s) => s.name === name)!, { factory, capabilities: [], api: 'public' });
    expect(result.status).toBe('failed');
    expect(result.failure?.message).not.toMatch(/the engine or the client threw/);
  });
});
