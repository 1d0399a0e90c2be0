import { describe, expect, it } from 'vitest';
import { PRESENCE_MUTATION_NAME } from '../../protocol/presence';
import type { ReadonlyJSONValue, WriteTransaction } from '../db/transaction-types';
import { ReservedMutatorNameError, PresenceStateError } from './errors';
import { presenceEntry, presenceKey } from './presence-entry';
import { setPresenceLocally, withPresenceMutator } from './presence-mutator';

/** Just enough of a write transaction: a map. */
function txOver(data: Map<string, ReadonlyJSONValue>, clientID = 'c1'): WriteTransaction {
  return {
    clientID,
    reason: 'initial',
    mutationID: 1,
    get: async (key: string) => data.get(key),
    put: async (key: string, value: ReadonlyJSONValue) => void data.set(key, value),
  } as unknown as WriteTransaction;
}

describe('the built-in presence mutator on the client', () => {
  it('is registered beside the app mutators, under its reserved name', () => {
    const app = { addTodo: async () => {} };
    expect(Object.keys(withPresenceMutator(app))).toEqual(['addTodo', PRESENCE_MUTATION_NAME]);
  });

  it('refuses app mutators named under the reserved prefix', () => {
    expect(() => withPresenceMutator({ '_roomsync/mine': async () => {} })).toThrow(ReservedMutatorNameError);
  });

  it("sets the state of its client's entry, keeping what the server wrote", async () => {
    const data = new Map<string, ReadonlyJSONValue>([[presenceKey('c1'), presenceEntry('c1', 'ada', null, 'n1')]]);
    await setPresenceLocally(txOver(data), { state: { x: 3 } });
    expect(data.get(presenceKey('c1'))).toEqual(presenceEntry('c1', 'ada', { x: 3 }, 'n1'));
  });

  it('writes nothing for a client the server does not list as present, like the server', async () => {
    const data = new Map<string, ReadonlyJSONValue>();
    await setPresenceLocally(txOver(data), { state: { x: 3 } });
    expect(data.size).toBe(0);
  });

  it('throws PresenceStateError for args that are not {state}', async () => {
    await expect(setPresenceLocally(txOver(new Map()), { x: 1 })).rejects.toThrow(PresenceStateError);
  });
});
