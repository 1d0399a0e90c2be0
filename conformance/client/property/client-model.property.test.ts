import { describe, expect, it } from 'vitest';
import { runScenario } from '../engine/run-scenario';
import { createClient } from '../factory';
import { brokenVariants } from '../broken/variants';
import { checkClientProperty, describeCounterexample } from './check-client-property';
import { commandsToScenario, PUSH_FRAMES_A_CLIENT_MAY_HOLD } from './model-scenario';

const variant = (name: string) => brokenVariants.find((v) => v.name === name)!;

describe('our client against the model (fast-check)', () => {
  it('loses no mutation, sends none twice on a socket, keeps ids in order, re-sends until acknowledged and converges', async () => {
    const outcome = await checkClientProperty({ factory: createClient, numRuns: 150, maxCommands: 30 });
    expect(outcome.ok, describeCounterexample(outcome)).toBe(true);
  });

  it('passes the model on a hand-written sequence covering every command', async () => {
    const scenario = commandsToScenario([
      { type: 'mutate', op: 'increment', key: 'a', value: 2 },
      { type: 'otherChange', key: 'a', value: 5 },
      { type: 'mutate', op: 'put', key: 'b', value: 1 },
      { type: 'ack', count: 1 },
      { type: 'drop' },
      { type: 'mutate', op: 'del', key: 'b', value: 0 },
      { type: 'refuseNext' },
      { type: 'otherChange', key: 'c', value: null },
      { type: 'advance', ms: 7000 },
      { type: 'advance', ms: 20_000 },
      { type: 'ack', count: 3 },
      { type: 'outOfOrderPoke' },
      { type: 'hide', ms: 12_000 },
      { type: 'advance', ms: 5000 },
      { type: 'drop' },
      { type: 'reconnect' },
    ]);
    const result = await runScenario(scenario, { factory: createClient });
    expect(result.status, result.failure?.message).toBe('passed');
  });

  it('passes the model on more mutations in a row than frames a client may keep unacknowledged (CI seed -786227702)', async () => {
    const puts = Array.from({ length: PUSH_FRAMES_A_CLIENT_MAY_HOLD + 3 }, (_, i) => ({ type: 'mutate' as const, op: 'put' as const, key: 'a' as const, value: i }));
    const scenario = commandsToScenario(puts);
    expect(scenario.steps.filter((s) => s.step === 'send').length, 'the model acknowledged before the window filled').toBeGreaterThan(1);
    const result = await runScenario(scenario, { factory: createClient });
    expect(result.status, result.failure?.message).toBe('passed');
  });

  it('fails our client when told the client never holds pushes back (the window setting is what lets it pass)', async () => {
    const puts = Array.from({ length: PUSH_FRAMES_A_CLIENT_MAY_HOLD + 1 }, (_, i) => ({ type: 'mutate' as const, op: 'put' as const, key: 'a' as const, value: i }));
    const result = await runScenario(commandsToScenario(puts, 'no-window', { pushWindowFrames: Infinity }), { factory: createClient });
    expect(result.status).toBe('failed');
    expect(result.failure?.message).toMatch(/pushed mutation ids/);
  });
});

describe('a broken client fails the property, shrunk to a small scenario printed as a module', () => {
  it.each(['resendAcknowledged', 'noBackoff', 'ignoreLocalCookie'])('%s', async (name) => {
    const outcome = await checkClientProperty({ factory: variant(name).wrap(createClient), numRuns: 300, maxCommands: 30, seed: 7 });
    expect(outcome.ok).toBe(false);
    const c = outcome.counterexample!;
    expect(c.result.status).toBe('failed');
    expect(c.commands.length).toBeLessThanOrEqual(4);
    expect(c.module).toMatch(/^import type \{ Scenario \} from '\.\.\/scenario';\n\nconst scenario: Scenario = \{\n {2}"name": "property\/regression"/);
    // The printed module is the same scenario, data only.
    const json = c.module.slice(c.module.indexOf('= {') + 2, c.module.lastIndexOf('}') + 1);
    expect(JSON.parse(json)).toEqual(c.scenario);
  });
});
