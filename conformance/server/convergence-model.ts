import fc from 'fast-check';
import type { ReadonlyJSONValue } from '../../protocol/json';
import type { KeyValues } from '../shared/client-view';

/** One mutation of the convergence scenario: put/del on a client's own keys, increment on shared counters. */
export type PlannedOp =
  | { readonly kind: 'put'; readonly slot: number; readonly value: number }
  | { readonly kind: 'del'; readonly slot: number }
  | { readonly kind: 'increment'; readonly counter: number; readonly delta: number };

export interface ClientPlan {
  readonly group: number;
  readonly ops: readonly PlannedOp[];
  /** Mutations per push frame. */
  readonly batch: number;
}

export interface Scenario {
  readonly clients: readonly ClientPlan[];
  /** Picks which client sends its next frame (modulo the clients still sending). */
  readonly interleaving: readonly number[];
}

export interface ScenarioBounds {
  /** @default 1 */
  readonly minClients?: number;
  readonly maxClients: number;
  readonly maxGroups: number;
  readonly maxMutations: number;
}

const SLOTS = 3;
const COUNTERS = 2;
const MAX_DELTA = 5;
const MAX_BATCH = 3;

export function scenarioArbitrary(bounds: ScenarioBounds): fc.Arbitrary<Scenario> {
  const op: fc.Arbitrary<PlannedOp> = fc.oneof(
    fc.record({ kind: fc.constant('put' as const), slot: fc.nat(SLOTS - 1), value: fc.integer({ min: -100, max: 100 }) }),
    fc.record({ kind: fc.constant('del' as const), slot: fc.nat(SLOTS - 1) }),
    fc.record({ kind: fc.constant('increment' as const), counter: fc.nat(COUNTERS - 1), delta: fc.integer({ min: -MAX_DELTA, max: MAX_DELTA }) }),
  );
  const client = fc.record({
    group: fc.nat(bounds.maxGroups - 1),
    ops: fc.array(op, { maxLength: bounds.maxMutations }),
    batch: fc.integer({ min: 1, max: MAX_BATCH }),
  });
  return fc.record({
    clients: fc.array(client, { minLength: bounds.minClients ?? 1, maxLength: bounds.maxClients }),
    interleaving: fc.array(fc.nat(), { maxLength: bounds.maxClients * bounds.maxMutations }),
  });
}

export function ownKey(clientIndex: number, slot: number): string {
  return `client/${clientIndex}/${slot}`;
}

export function counterKey(counter: number): string {
  return `counter/${counter}`;
}

/** The mutator and args of one planned op of client `clientIndex`. */
export function toMutation(clientIndex: number, op: PlannedOp): { name: 'put' | 'del' | 'increment'; args: ReadonlyJSONValue } {
  if (op.kind === 'put') return { name: 'put', args: { key: ownKey(clientIndex, op.slot), value: op.value } };
  if (op.kind === 'del') return { name: 'del', args: { key: ownKey(clientIndex, op.slot) } };
  return { name: 'increment', args: { key: counterKey(op.counter), delta: op.delta } };
}

/** The state every client must reach, whatever order the server processed the clients' pushes in. */
export function expectedState(scenario: Scenario): KeyValues {
  const state: Record<string, number> = {};
  scenario.clients.forEach((client, index) => {
    for (const op of client.ops) {
      if (op.kind === 'put') state[ownKey(index, op.slot)] = op.value;
      else if (op.kind === 'del') delete state[ownKey(index, op.slot)];
      else state[counterKey(op.counter)] = (state[counterKey(op.counter)] ?? 0) + op.delta;
    }
  });
  return state;
}

/**
 * Every client's mutations cut into push frames of its `batch` size, in the
 * order the scenario interleaves them: [client index, frame] pairs.
 */
export function framesInSendingOrder<M>(scenario: Scenario, mutation: (clientIndex: number, op: PlannedOp) => M): [number, M[]][] {
  const frames = scenario.clients.map((plan, index) => {
    const mutations = plan.ops.map((op) => mutation(index, op));
    const out: M[][] = [];
    for (let i = 0; i < mutations.length; i += plan.batch) out.push(mutations.slice(i, i + plan.batch));
    return out;
  });
  const order: [number, M[]][] = [];
  const sending = frames.map((_, index) => index).filter((index) => frames[index]!.length > 0);
  for (let step = 0; sending.length > 0; step++) {
    const pick = (scenario.interleaving[step] ?? step) % sending.length;
    const index = sending[pick]!;
    order.push([index, frames[index]!.shift()!]);
    if (frames[index]!.length === 0) sending.splice(pick, 1);
  }
  return order;
}
