import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { WriteTransaction } from './db/transaction-types';
import { Reflect } from './reflect';

const mutators = {
  put: async (tx: WriteTransaction, args: { key: string; value: number }) => {
    await tx.put(args.key, args.value);
  },
};

describe('Reflect on IndexedDB', () => {
  it('keeps its data in the database named after the user and the room, across sessions', async () => {
    const errors: unknown[][] = [];
    const open = () =>
      new Reflect({ userID: 'idb-user', roomID: 'idb-room', socketOrigin: null, mutators, logSinks: [{ log: (_l, _c, ...args) => errors.push(args) }] });
    const first = open();
    await first.mutate.put({ key: 'kept', value: 42 });
    await first.close();
    const names = (await indexedDB.databases()).map((db) => db.name);
    expect(names).toContain(first.idbName);
    const second = open();
    expect(await second.query((tx) => tx.get('kept'))).toBe(42);
    await second.close();
    expect(errors).toEqual([]);
  });
});
