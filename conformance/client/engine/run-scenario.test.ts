import { describe, expect, it } from 'vitest';
import { wrapSocketConstructor } from '../broken/socket-wrappers';
import { createClient, type ClientFactory } from '../factory';
import type { Scenario, Step } from '../scenario';
import { runScenario } from './run-scenario';

const scenario = (steps: Step[]): Scenario => ({ name: 'engine/test', spec: '-', description: '-', steps });

/** Our client with every frame it sends passed through `rewrite`. */
const rewriting =
  (rewrite: (text: string) => string): ClientFactory =>
  (options) =>
    createClient({ ...options, environment: { ...options.environment, WebSocket: wrapSocketConstructor(options.environment!.WebSocket!, { send: rewrite }) } });

const connected: Step[] = [{ step: 'expectConnect', at: 0 }, { step: 'sendConnected' }];

describe('runScenario', () => {
  it('passes a scenario that holds and records what happened', async () => {
    const result = await runScenario(scenario([...connected, { step: 'mutate', name: 'put', args: { key: 'k', value: 1 } }, { step: 'expectPush', ids: [1] }]), {
      factory: createClient,
    });
    expect(result.status).toBe('passed');
    expect(result.transcript).toEqual([
      expect.stringMatching(/^t=0 client connects: baseCookie="" lmid=0 protocol=token-1$/),
      expect.stringMatching(/^t=0 server → \["connected",\{"wsid":"[A-Za-z0-9_-]{21}"\}\]$/),
      't=0 app: mutate.put({"key":"k","value":1})',
      't=0 client → push ids [1]',
    ]);
  });

  it('fails on a frame that is not a valid upstream message, quoting it', async () => {
    const factory = rewriting((text) => text.replace('"pushVersion":1', '"pushVersion":"1"'));
    const result = await runScenario(scenario([...connected, { step: 'mutate', name: 'put', args: { key: 'k', value: 1 } }, { step: 'expectPush', ids: [1] }]), { factory });
    expect(result.status).toBe('failed');
    expect(result.failure).toMatchObject({ stepIndex: 2, message: expect.stringMatching(/^the client sent a frame that does not match the protocol/), actual: expect.stringContaining('"pushVersion":"1"') });
  });

  it('fails when a mutation is sent twice on one socket', async () => {
    const factory = rewriting((text) => {
      if (!text.startsWith('["push"')) return text;
      const [name, body] = JSON.parse(text) as [string, { mutations: unknown[] }];
      return JSON.stringify([name, { ...body, mutations: [...body.mutations, ...body.mutations] }]);
    });
    const result = await runScenario(scenario([...connected, { step: 'mutate', name: 'put', args: { key: 'k', value: 1 } }]), { factory });
    expect(result.failure?.message).toBe('mutation 1 was sent after mutation 1 on the same socket (sent twice or out of order)');
  });

  it('fails a timing expectation with the time it saw', async () => {
    const result = await runScenario(scenario([{ step: 'expectConnect', at: 0 }, { step: 'dropSocket' }, { step: 'expectConnect', at: 4000 }]), { factory: createClient });
    expect(result.failure).toMatchObject({ stepIndex: 2, message: 'no connect by t=4000 ms', expected: 'a connect at t=4000 ms' });
    const early = await runScenario(scenario([{ step: 'expectConnect', at: 0 }, { step: 'dropSocket' }, { step: 'expectConnect', at: 6000 }]), { factory: createClient });
    expect(early.failure).toMatchObject({ message: 'the client connected at t=5000 ms', expected: 't=6000 ms' });
  });

  it('fails expectNoFrame when the client speaks, and expectPush on the wrong ids', async () => {
    const noFrame = await runScenario(scenario([...connected, { step: 'expectNoFrame', forMs: 10_000 }]), { factory: createClient });
    expect(noFrame.failure).toMatchObject({ message: 'the client sent a frame at t=5000 ms', actual: '["ping",{}]' });
    const wrongIDs = await runScenario(scenario([...connected, { step: 'mutate', name: 'put', args: { key: 'k', value: 1 } }, { step: 'expectPush', ids: [2] }]), { factory: createClient });
    expect(wrongIDs.failure).toMatchObject({ message: 'the client pushed mutation ids [1]', expected: '[2]' });
  });

  it('skips a scenario that needs an extra the client lacks, saying which; the injected path needs the environment', async () => {
    const needsReconnect = scenario([{ step: 'reconnect' }]);
    expect(await runScenario(needsReconnect, { factory: createClient, capabilities: ['disconnect'], api: 'public' })).toMatchObject({
      status: 'skipped',
      skipReason: 'needs a reconnect() method',
    });
    const injected = await runScenario(scenario(connected), { factory: createClient, capabilities: [] });
    expect(injected.skipReason).toMatch(/^needs the environment option/);
  });

  it('leaves an observation of a missing extra unchecked, and says so; a declared extra that is missing fails', async () => {
    const steps: Step[] = [...connected, { step: 'expectClient', online: true, pendingMutationCount: 99 }];
    const lacking = await runScenario(scenario(steps), { factory: createClient, capabilities: [], api: 'public' });
    expect([lacking.status, lacking.unchecked]).toEqual(['passed', ['pendingMutationCount']]);
    const noCount: ClientFactory = (options) => {
      const client = createClient(options);
      Object.defineProperty(client, 'pendingMutationCount', { value: undefined });
      return client;
    };
    const declared = await runScenario(scenario(steps), { factory: noCount, capabilities: ['pendingMutationCount'], api: 'public' });
    expect(declared.failure?.message).toBe('the client declares the pendingMutationCount capability but has no pendingMutationCount');
  });

  it('drives a client that takes no environment with the global fake clock over a real socket, to the millisecond', async () => {
    const result = await runScenario(scenario([{ step: 'expectConnect', at: 0 }, { step: 'dropSocket' }, { step: 'expectConnect', at: 5000 }, { step: 'sendConnected' }, { step: 'expectPing', at: 10_000 }]), {
      factory: createClient,
      capabilities: [],
      api: 'public',
    });
    expect(result.status, result.failure?.message).toBe('passed');
    expect(result.transcript.map((line) => line.split(' ')[0])).toEqual(['t=0', 't=0', 't=5000', 't=5000', 't=10000']);
    expect('clock' in globalThis.setTimeout, 'the global timers are real again').toBe(false);
  });

  it('fails a step that needs a socket before any connect was expected, and an unknown mutator', async () => {
    expect((await runScenario(scenario([{ step: 'sendConnected' }]), { factory: createClient })).failure?.message).toMatch(/no connect was expected yet/);
    expect((await runScenario(scenario([{ step: 'mutate', name: 'nope', args: null }]), { factory: createClient })).failure?.message).toBe('the client has no mutator nope');
  });
});
