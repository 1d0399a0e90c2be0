import { describe, expect, it } from 'vitest';
import type { Storage } from './types';

/** The behaviour every Storage must show; each implementation's test calls this. */
export function describeStorageContract(name: string, open: () => Promise<Storage>): void {
  describe(`${name}: Storage contract`, () => {
    it('creates rooms once and lists them', async () => {
      const s = await open();
      expect(await s.createRoom('r1', 5)).toBe(true);
      expect(await s.createRoom('r1', 6)).toBe(false);
      expect(await s.listRooms()).toEqual([{ roomID: 'r1', version: 0, closed: false, tombstoneHorizon: 0, createdAt: 5 }]);
      expect(await s.loadRoom('nope')).toBeUndefined();
      await s.close();
    });

    it('commits batches and loads them back', async () => {
      const s = await open();
      await s.createRoom('r', 0);
      await s.commitBatch('r', {
        version: 1,
        entries: [
          { key: 'a', value: { x: [1, 'two'] }, version: 1 },
          { key: 'b', value: undefined, version: 1 },
        ],
        clients: [{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 3 }],
      });
      await s.commitBatch('r', {
        version: 2,
        entries: [{ key: 'a', value: 7, version: 2 }],
        clients: [{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 4 }],
      });
      const room = await s.loadRoom('r');
      expect(room?.meta.version).toBe(2);
      expect([...room!.entries].sort((x, y) => (x.key < y.key ? -1 : 1))).toEqual([
        { key: 'a', value: 7, version: 2 },
        { key: 'b', value: undefined, version: 1 },
      ]);
      expect(room?.clients).toEqual([{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 4 }]);
      await s.close();
    });

    it('prunes tombstones up to the horizon', async () => {
      const s = await open();
      await s.createRoom('r', 0);
      await s.commitBatch('r', { version: 1, entries: [{ key: 'a', value: undefined, version: 1 }], clients: [] });
      await s.commitBatch('r', {
        version: 2,
        entries: [{ key: 'b', value: undefined, version: 2 }],
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
      await s.commitBatch('r', { version: 1, entries: [{ key: 'a', value: 1, version: 1 }], clients: [] });
      expect(await s.setRoomClosed('r', true)).toBe(true);
      expect((await s.loadRoom('r'))?.meta.closed).toBe(true);
      expect(await s.setRoomClosed('x', true)).toBe(false);
      expect(await s.deleteRoom('r')).toBe(true);
      expect(await s.deleteRoom('r')).toBe(false);
      expect(await s.loadRoom('r')).toBeUndefined();
      await s.createRoom('r', 0);
      expect((await s.loadRoom('r'))?.entries).toEqual([]);
      await expect(s.commitBatch('missing', { version: 1, entries: [], clients: [] })).rejects.toThrow();
      await s.close();
    });
  });
}
