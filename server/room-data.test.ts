import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PatchOperation } from '../src/protocol';
import { BatchWriter } from './batch-writer';
import { entryBytes, entryOf, RoomData } from './room-data';

function applyPatch(state: Map<string, unknown>, patch: readonly PatchOperation[]): void {
  for (const op of patch) {
    if (op.op === 'clear') state.clear();
    else if (op.op === 'del') state.delete(op.key);
    else state.set(op.key, op.value);
  }
}

const keyArb = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const batchArb = fc.array(fc.tuple(keyArb, fc.option(fc.integer(), { nil: undefined })), { minLength: 1, maxLength: 4 });

describe('RoomData.patchSince', () => {
  it('takes a client from any earlier cookie to the current state (property)', () => {
    fc.assert(
      fc.property(fc.array(batchArb, { maxLength: 12 }), fc.nat(8), (batches, keepTombstones) => {
        const data = new RoomData();
        const snapshots = new Map<number, Map<string, unknown>>([[0, new Map()]]);
        for (const writes of batches) {
          const w = new BatchWriter(data, data.version + 1);
          for (const [k, v] of writes) w.write(k, v);
          w.endMutation();
          w.finish();
          data.version = w.version;
          data.pruneTombstones(keepTombstones);
          snapshots.set(data.version, new Map(data.live()));
        }
        const current = new Map(data.live());
        for (const cookie of [null, ...snapshots.keys()]) {
          const state = new Map(cookie === null ? [] : snapshots.get(cookie)!);
          applyPatch(state, data.patchSince(cookie));
          expect(state).toEqual(current);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('sends clear for a null cookie, deletes after a reconnect, nothing when current', () => {
    const data = new RoomData();
    const w1 = new BatchWriter(data, 1);
    w1.write('a', 1);
    w1.write('b', 2);
    w1.write('c', 3);
    w1.finish();
    data.version = 1;
    const w2 = new BatchWriter(data, 2);
    w2.write('a', undefined);
    w2.finish();
    data.version = 2;
    expect(data.patchSince(null)).toEqual([{ op: 'clear' }, { op: 'put', key: 'b', value: 2 }, { op: 'put', key: 'c', value: 3 }]);
    expect(data.patchSince(1)).toEqual([{ op: 'del', key: 'a' }]);
    expect(data.patchSince(2)).toEqual([]);
  });

  it('falls back to clear when the difference is not smaller than the state', () => {
    const data = new RoomData();
    const w1 = new BatchWriter(data, 1);
    w1.write('a', 1);
    w1.finish();
    const w2 = new BatchWriter(data, 2);
    w2.write('a', undefined);
    w2.write('b', 1);
    w2.finish();
    data.version = 2;
    expect(data.patchSince(1)).toEqual([{ op: 'clear' }, { op: 'put', key: 'b', value: 1 }]);
  });

  it('falls back to clear below the tombstone horizon', () => {
    const data = new RoomData();
    for (let v = 1; v <= 4; v++) {
      const w = new BatchWriter(data, v);
      w.write(`k${v}`, v);
      if (v > 1) w.write(`k${v - 1}`, undefined);
      w.finish();
      data.version = v;
    }
    expect(data.pruneTombstones(1)).toBe(3);
    expect(data.tombstoneCount).toBe(1);
    expect(data.patchSince(2)[0]).toEqual({ op: 'clear' });
    expect(data.patchSince(3)).toEqual([{ op: 'clear' }, { op: 'put', key: 'k4', value: 4 }]);
  });
});

describe('RoomData.loadEntries', () => {
  it('loads a large room in key order, tombstones included', () => {
    const data = new RoomData(5);
    const n = 200_000;
    data.loadEntries(
      (function* () {
        for (let i = n - 1; i >= 0; i--) yield [`k${i}`, entryOf(i % 10 === 0 ? undefined : i, 1)] as const;
      })(),
    );
    expect(data.liveCount).toBe(n - n / 10);
    expect(data.tombstoneCount).toBe(n / 10);
    expect(data.nextLiveKey('k', false)).toBe('k1');
    expect(data.nextLiveKey('k99998', true)).toBe('k99999');
    expect(() => data.loadEntries([])).toThrow();
  });
});

describe('RoomData.byteSize', () => {
  it('counts what the live entries add to a catch-up as values replace values, tombstones and absences (property)', () => {
    const keys = fc.constantFrom('a', 'é', 'k"\\', '\u0001');
    const values = fc.option(fc.oneof(fc.integer(), fc.string(), fc.constant('ü'.repeat(20))), { nil: undefined });
    fc.assert(
      fc.property(fc.array(fc.tuple(keys, values, fc.boolean())), (writes) => {
        const data = new RoomData();
        let version = 0;
        for (const [key, value, remove] of writes) data.setEntry(key, remove ? undefined : entryOf(value, ++version));
        let expected = 0;
        for (const [key, entry] of data.all()) expected += entryBytes(key, entry.json);
        expect(data.byteSize).toBe(expected);
      }),
    );
  });
});
