import { describe, expect, it } from 'vitest';
import { isSharedStorage, type Storage } from './types';

/**
 * The behaviour every Storage must show; each implementation's test calls
 * this (`groups`: it has commitBatches, whose contract is checked too).
 */
/** Entries in key order, whatever order the storage returns them in. */
function byKey<T extends { readonly key: string }>(entries: Iterable<T>): T[] {
  return [...entries].sort((x, y) => (x.key < y.key ? -1 : 1));
}

/** Clients in client id order. */
function byClient<T extends { readonly clientID: string }>(clients: Iterable<T>): T[] {
  return [...clients].sort((x, y) => (x.clientID < y.clientID ? -1 : 1));
}

export function describeStorageContract(name: string, open: () => Promise<Storage>, { groups = false }: { readonly groups?: boolean } = {}): void {
  describe(`${name}: Storage contract`, () => {
    it('creates rooms once and lists them', async () => {
      const s = await open();
      expect(await s.createRoom('r1', 5)).toBe(true);
      expect(await s.createRoom('r1', 6)).toBe(false);
      expect(await s.listRooms()).toEqual([{ roomID: 'r1', version: 0, closed: false, tombstoneHorizon: 0, createdAt: 5 }]);
      expect(await s.loadRoom('nope')).toBeUndefined();
      expect(await s.countRooms()).toBe(1);
      await s.close();
    });

    it('commits batches and loads them back', async () => {
      const s = await open();
      await s.createRoom('r', 0);
      await s.commitBatch('r', {
        baseVersion: 0,
        version: 1,
        entries: [
          { key: 'a', json: '{"x":[1,"two"],"__proto__":0}', version: 1 },
          { key: 'b', json: undefined, version: 1 },
        ],
        clients: [{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 3, userID: 'u1' }],
      });
      await s.commitBatch('r', {
        baseVersion: 1,
        version: 2,
        entries: [{ key: 'a', json: '{"b":7,"a":8}', version: 2 }],
        clients: [{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 4, userID: 'u1' }],
      });
      const room = await s.loadRoom('r');
      expect(room?.meta.version).toBe(2);
      expect(byKey(room!.entries)).toEqual([
        { key: 'a', json: '{"b":7,"a":8}', version: 2 },
        { key: 'b', json: undefined, version: 1 },
      ]);
      expect(room?.clients).toEqual([{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 4, userID: 'u1' }]);
      await s.close();
    });

    it('refuses a batch that ran against another version (the room moved on)', async () => {
      const s = await open();
      await s.createRoom('r', 0);
      await s.commitBatch('r', { baseVersion: 0, version: 1, entries: [{ key: 'a', json: '1', version: 1 }], clients: [] });
      await expect(s.commitBatch('r', { baseVersion: 0, version: 1, entries: [{ key: 'a', json: '2', version: 1 }], clients: [] })).rejects.toMatchObject({
        kind: 'StaleRoom',
      });
      expect((await s.loadRoom('r'))?.entries).toEqual([{ key: 'a', json: '1', version: 1 }]);
      await s.close();
    });

    it.runIf(groups)('commits consecutive batches together, all or none (commitBatches)', async () => {
      const s = await open();
      if (s.commitBatches === undefined) throw new Error(`${name} has no commitBatches`);
      await s.createRoom('r', 0);
      await s.commitBatches('r', [
        { baseVersion: 0, version: 1, entries: [{ key: 'a', json: '1', version: 1 }, { key: 'b', json: '"b"', version: 1 }], clients: [{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 1 }] },
        { baseVersion: 1, version: 2, entries: [{ key: 'a', json: '2', version: 2 }], clients: [{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 2 }] },
        { baseVersion: 2, version: 3, entries: [{ key: 'b', json: undefined, version: 3 }], clients: [], tombstoneHorizon: 1 },
      ]);
      let room = await s.loadRoom('r');
      expect(room?.meta).toMatchObject({ version: 3, tombstoneHorizon: 1 });
      expect(byKey(room!.entries)).toEqual([
        { key: 'a', json: '2', version: 2 },
        { key: 'b', json: undefined, version: 3 },
      ]);
      expect(room?.clients).toEqual([{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 2 }]);
      // The first one ran against a version the room is no longer at: nothing of the group is written.
      const stale = [
        { baseVersion: 2, version: 3, entries: [{ key: 'c', json: '1', version: 3 }], clients: [] },
        { baseVersion: 3, version: 4, entries: [{ key: 'd', json: '1', version: 4 }], clients: [] },
      ];
      await expect(s.commitBatches('r', stale)).rejects.toMatchObject({ kind: 'StaleRoom' });
      // Batches that do not follow each other are a caller's bug.
      await expect(s.commitBatches('r', [stale[1]!, stale[1]!].map((b, i) => ({ ...b, baseVersion: 3 + i * 2 })))).rejects.toThrow(/based on version/);
      room = await s.loadRoom('r');
      expect(room?.meta.version).toBe(3);
      expect(room?.entries.map((e) => e.key).sort()).toEqual(['a', 'b']);
      await s.close();
    });

    it.runIf(groups)('stores a group as its batches one after the other would: last writes win, a later horizon prunes an earlier tombstone', async () => {
      const s = await open();
      await s.createRoom('r', 0);
      await s.commitBatch('r', { baseVersion: 0, version: 1, entries: [{ key: 'old', json: undefined, version: 1 }, { key: 'kept', json: undefined, version: 1 }], clients: [] });
      await s.commitBatches!('r', [
        { baseVersion: 1, version: 2, entries: [{ key: 'x', json: undefined, version: 2 }, { key: 'k', json: '1', version: 2 }, { key: 'kept', json: '1', version: 2 }], clients: [{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 1 }] },
        { baseVersion: 2, version: 3, entries: [{ key: 'k', json: '2', version: 3 }], clients: [{ clientID: 'c2', clientGroupID: 'g1', lastMutationID: 1, userID: 'u' }] },
        // Prunes the tombstones of "old" (before the group) and "x" (written by the group's first batch).
        { baseVersion: 3, version: 4, entries: [{ key: 'y', json: '"y"', version: 4 }], clients: [{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 3 }], tombstoneHorizon: 2 },
      ]);
      const room = await s.loadRoom('r');
      expect(room?.meta).toMatchObject({ version: 4, tombstoneHorizon: 2 });
      expect(byKey(room!.entries)).toEqual([
        { key: 'k', json: '2', version: 3 },
        { key: 'kept', json: '1', version: 2 },
        { key: 'y', json: '"y"', version: 4 },
      ]);
      expect(byClient(room!.clients)).toEqual([
        { clientID: 'c1', clientGroupID: 'g1', lastMutationID: 3 },
        { clientID: 'c2', clientGroupID: 'g1', lastMutationID: 1, userID: 'u' },
      ]);
      // What changed since each version: entries and clients carry the version of the batch that last wrote them.
      if (isSharedStorage(s)) {
        const since2 = (await s.changesSince('r', 2))!;
        expect(since2.entries).toEqual(expect.arrayContaining([{ key: 'k', json: '2', version: 3 }, { key: 'y', json: '"y"', version: 4 }]));
        expect(since2.entries).toHaveLength(2);
        expect(since2.clients).toHaveLength(2);
      }
      await s.close();
    });

    it.runIf(groups)('stores a group with no horizon past its base as its batches one after the other would: last writes win per key and client, each with its version', async () => {
      const s = await open();
      await s.createRoom('r', 0);
      await s.commitBatch('r', { baseVersion: 0, version: 1, entries: [{ key: 'old', json: undefined, version: 1 }, { key: 'b', json: '"b1"', version: 1 }], clients: [{ clientID: 'c0', clientGroupID: 'g0', lastMutationID: 5 }] });
      // No batch's horizon reaches past the group's base (the last one's, 1, prunes only what was there before the group).
      await s.commitBatches!('r', [
        { baseVersion: 1, version: 2, entries: [{ key: 'a', json: '1', version: 2 }, { key: 'b', json: '"b2"', version: 2 }, { key: 'c', json: undefined, version: 2 }, { key: 'd', json: '"d"', version: 2 }], clients: [{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 1 }, { clientID: 'c2', clientGroupID: 'g1', lastMutationID: 1, userID: 'u2' }] },
        { baseVersion: 2, version: 3, entries: [{ key: 'a', json: '2', version: 3 }, { key: 'c', json: '"c"', version: 3 }], clients: [{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 2 }] },
        { baseVersion: 3, version: 4, entries: [{ key: 'a', json: '3', version: 4 }, { key: 'd', json: undefined, version: 4 }], clients: [{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 4 }, { clientID: 'c3', clientGroupID: 'g2', lastMutationID: 7, userID: 'u3' }], tombstoneHorizon: 1 },
      ]);
      const room = await s.loadRoom('r');
      expect(room?.meta).toMatchObject({ version: 4, tombstoneHorizon: 1 });
      expect(byKey(room!.entries)).toEqual([
        { key: 'a', json: '3', version: 4 },
        { key: 'b', json: '"b2"', version: 2 },
        { key: 'c', json: '"c"', version: 3 },
        { key: 'd', json: undefined, version: 4 },
      ]);
      expect(byClient(room!.clients)).toEqual([
        { clientID: 'c0', clientGroupID: 'g0', lastMutationID: 5 },
        { clientID: 'c1', clientGroupID: 'g1', lastMutationID: 4 },
        { clientID: 'c2', clientGroupID: 'g1', lastMutationID: 1, userID: 'u2' },
        { clientID: 'c3', clientGroupID: 'g2', lastMutationID: 7, userID: 'u3' },
      ]);
      if (isSharedStorage(s)) {
        const since1 = (await s.changesSince('r', 1))!;
        expect(since1.meta.version).toBe(4);
        expect(byKey(since1.entries)).toEqual([
          { key: 'a', json: '3', version: 4 },
          { key: 'b', json: '"b2"', version: 2 },
          { key: 'c', json: '"c"', version: 3 },
          { key: 'd', json: undefined, version: 4 },
        ]);
        expect(byClient(since1.clients).map((c) => c.clientID)).toEqual(['c1', 'c2', 'c3']);
        const since2 = (await s.changesSince('r', 2))!;
        expect(byKey(since2.entries)).toEqual([
          { key: 'a', json: '3', version: 4 },
          { key: 'c', json: '"c"', version: 3 },
          { key: 'd', json: undefined, version: 4 },
        ]);
        expect(byClient(since2.clients).map((c) => c.clientID)).toEqual(['c1', 'c3']);
        const since3 = (await s.changesSince('r', 3))!;
        expect(byKey(since3.entries)).toEqual([
          { key: 'a', json: '3', version: 4 },
          { key: 'd', json: undefined, version: 4 },
        ]);
        expect(byClient(since3.clients).map((c) => c.clientID)).toEqual(['c1', 'c3']);
        expect((await s.changesSince('r', 4))!.entries).toEqual([]);
      }
      await s.close();
    });

    it('prunes tombstones up to the horizon', async () => {
      const s = await open();
      await s.createRoom('r', 0);
      await s.commitBatch('r', { baseVersion: 0, version: 1, entries: [{ key: 'a', json: undefined, version: 1 }], clients: [] });
      await s.commitBatch('r', {
        baseVersion: 1,
        version: 2,
        entries: [{ key: 'b', json: undefined, version: 2 }],
        clients: [],
        tombstoneHorizon: 1,
      });
      const room = await s.loadRoom('r');
      expect(room?.meta.tombstoneHorizon).toBe(1);
      expect(room?.entries.map((e) => e.key)).toEqual(['b']);
      await s.close();
    });

    it('closes and deletes rooms', async () => {
      const s = await open();
      await s.createRoom('r', 0);
      await s.commitBatch('r', { baseVersion: 0, version: 1, entries: [{ key: 'a', json: '1', version: 1 }], clients: [] });
      expect(await s.setRoomClosed('r', true)).toBe(true);
      expect((await s.loadRoom('r'))?.meta.closed).toBe(true);
      expect(await s.setRoomClosed('x', true)).toBe(false);
      expect(await s.deleteRoom('r')).toBe(true);
      expect(await s.deleteRoom('r')).toBe(false);
      expect(await s.loadRoom('r')).toBeUndefined();
      await s.createRoom('r', 0);
      expect((await s.loadRoom('r'))?.entries).toEqual([]);
      await expect(s.commitBatch('missing', { baseVersion: 0, version: 1, entries: [], clients: [] })).rejects.toThrow();
      await s.close();
    });
  });
}
