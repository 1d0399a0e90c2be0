import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectedState, scenarioArbitrary, toMutation, type Scenario } from './convergence-model';

/** Runs the mutations as a server would, in the interleaving given by `order` (each client's own order kept). */
function serverState(scenario: Scenario, order: readonly number[]): Record<string, unknown> {
  const state = new Map<string, unknown>();
  const cursors = scenario.clients.map(() => 0);
  const remaining = scenario.clients.map((_, index) => index).filter((index) => scenario.clients[index]!.ops.length > 0);
  for (let step = 0; remaining.length > 0; step++) {
    const pick = (order[step] ?? 0) % remaining.length;
    const index = remaining[pick]!;
    const { name, args } = toMutation(index, scenario.clients[index]!.ops[cursors[index]!++]!);
    const a = args as { key: string; value?: unknown; delta?: number };
    if (name === 'put') state.set(a.key, a.value);
    else if (name === 'del') state.delete(a.key);
    else state.set(a.key, ((state.get(a.key) as number | undefined) ?? 0) + a.delta!);
    if (cursors[index] === scenario.clients[index]!.ops.length) remaining.splice(pick, 1);
  }
  return Object.fromEntries(state);
}

describe('convergence model', () => {
  it('predicts the state whatever order the server interleaves the clients in', () => {
    fc.assert(
      fc.property(scenarioArbitrary({ maxClients: 6, maxGroups: 3, maxMutations: 10 }), fc.array(fc.nat(), { maxLength: 60 }), (scenario, order) => {
        expect(serverState(scenario, order)).toEqual(expectedState(scenario));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps clients to their own keys and shares only the counters', () => {
    const scenario: Scenario = {
      clients: [
        { group: 0, batch: 1, ops: [{ kind: 'put', slot: 0, value: 1 }, { kind: 'increment', counter: 1, delta: 2 }] },
        { group: 1, batch: 2, ops: [{ kind: 'put', slot: 0, value: 5 }, { kind: 'increment', counter: 1, delta: -1 }, { kind: 'del', slot: 0 }] },
      ],
      interleaving: [],
    };
    expect(expectedState(scenario)).toEqual({ 'client/0/0': 1, 'counter/1': 1 });
  });
});
