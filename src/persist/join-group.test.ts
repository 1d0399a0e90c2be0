// The fake's classes are global too, as in a browser (a prefetch builds an IDBKeyRange).
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { PersistentDagStore } from '../dag/store';
import { openStore } from '../kv/idb-store';
import { startJoiningClientGroup } from './join-group';
import { clientHead, readClient, refreshHead } from './records';

const join = async (perdag: PersistentDagStore, clientID: string) => {
  const joined = await startJoiningClientGroup(perdag, {
    clientID,
    mutatorNames: ['put'],
    indexes: {},
    now: 1,
    newClientGroupID: () => 'group',
  });
  await joined.committed;
  return joined;
};

/** The keys of the IndexedDB gets made while `run` runs. */
async function getsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const gets = vi.spyOn(IDBObjectStore.prototype, 'get');
  try {
    await run();
    return gets.mock.calls.map(([key]) => String(key));
  } finally {
    gets.mockRestore();
  }
}

describe('joining a client group on IndexedDB', () => {
  it("asks nothing for a new client's heads (it has none yet) nor for the list of groups (read with the group records); a client id that has heads (a reload of the same tab) reads them, and its head's count stays right", async () => {
    const perdag = new PersistentDagStore(await openStore('join-heads', { idbFactory: new IDBFactory(), logger: { warn: () => {} } }));
    await join(perdag, 'first'); // the group and its head
    const headCount = () => perdag.withRead((r) => r.refCount(joined.headHash));
    let joined!: Awaited<ReturnType<typeof join>>;
    const newClient = await getsDuring(async () => (joined = await join(perdag, 'new')));
    const heads = (id: string) => [`h/${clientHead(id)}`, `h/${refreshHead(id)}`];
    expect(newClient.filter((key) => heads('new').includes(key))).toEqual([]);
    // The list of groups comes with the group records (no get of its own).
    expect(newClient).not.toContain('m/groups');
    expect(newClient).toContain('m/clients');
    expect(await perdag.withRead((r) => r.getHead(clientHead('new')))).toBe(joined.headHash);
    expect(await perdag.withRead((r) => readClient(r, 'new'))).toMatchObject({ headHash: joined.headHash, clientGroupID: 'group' });
    // The group's head is held by the group and by each client.
    expect(await headCount()).toBe(3);

    // The same id again: its stored head is read (a head taken for absent would be counted twice).
    const again = await getsDuring(() => join(perdag, 'new'));
    expect(again.filter((key) => heads('new').includes(key)).sort()).toEqual(heads('new').sort());
    expect(await headCount()).toBe(3);
    await perdag.close();
  });
});
