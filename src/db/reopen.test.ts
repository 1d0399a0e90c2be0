import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import { LazyDagStore } from '../dag/lazy-store';
import { createStore } from './store';
import { basicMutators, ManualTimers, RecordingLogger } from './test-helpers';

function open(name: string, clientID = 'c1', indexes = {}) {
  return createStore({
    name,
    clientID,
    mutators: basicMutators,
    indexes,
    logger: new RecordingLogger(),
    timers: new ManualTimers(),
    clock: () => 1,
  });
}

describe('persistence on IndexedDB (fake-indexeddb)', () => {
  it('data and pending mutations survive close and reopen', async () => {
    const a = await open('reopen-1');
    await a.mutate('put', { key: 'x', value: { n: 1 } });
    await a.mutate('put', { key: 'y', value: 2 });
    await a.applyServerUpdate({ baseCookie: null, cookie: 7, lastMutationIDChanges: { c1: 1 }, patch: [{ op: 'put', key: 'x', value: { n: 1 } }] });
    await a.close();

    const b = await open('reopen-1');
    expect(await b.query((tx) => tx.scan().entries().toArray())).toEqual([
      ['x', { n: 1 }],
      ['y', 2],
    ]);
    expect(b.cookie).toBe(7);
    const x = (await b.query((tx) => tx.get('x'))) as { n: number };
    expect(Object.isFrozen(x)).toBe(true);
    const scanned = (await b.query((tx) => tx.scan().toArray())) as object[];
    expect(scanned.every((v) => typeof v !== 'object' || Object.isFrozen(v))).toBe(true);
    expect(b.lastMutationID).toBe(1);
    expect(b.pendingMutations().map((m) => [m.id, m.name])).toEqual([[2, 'put']]);
    await b.mutate('inc', { key: 'z', by: 1 });
    expect(b.pendingMutations().map((m) => m.id)).toEqual([2, 3]);
    expect(b.pendingMutationCount).toBe(2);
    await b.applyServerUpdate({ baseCookie: 7, cookie: 8, lastMutationIDChanges: { c1: 2 }, patch: [{ op: 'put', key: 's', value: 0 }, { op: 'put', key: 'y', value: 2 }] });
    expect(await b.query((tx) => tx.scan().keys().toArray())).toEqual(['s', 'x', 'y', 'z']);
    await b.close();
  });

  it('opening a stored head built with the same indexes only reads (no write); other indexes rebuild it', async () => {
    const a = await open('reopen-read-only', 'c1', { byN: { jsonPointer: '/n' } });
    await a.mutate('put', { key: 'x', value: { n: 'one' } });
    await a.close();
    const writes = vi.spyOn(LazyDagStore.prototype, 'write');
    try {
      const b = await open('reopen-read-only', 'c1', { byN: { jsonPointer: '/n' } });
      expect(writes).not.toHaveBeenCalled();
      expect(await b.query((tx) => tx.scan({ indexName: 'byN' }).keys().toArray())).toEqual([['one', 'x']]);
      expect(b.pendingMutations().map((m) => m.id)).toEqual([1]);
      await b.close();
      const c = await open('reopen-read-only', 'c1', { byKey: { jsonPointer: '/n', prefix: 'x' } });
      expect(writes).toHaveBeenCalled();
      expect(await c.query((tx) => tx.scan({ indexName: 'byKey' }).keys().toArray())).toEqual([['one', 'x']]);
      await c.close();
    } finally {
      writes.mockRestore();
    }
  });

  it('a new client of the same store sees the data and the other client\'s pending mutations', async () => {
    const a = await open('reopen-2', 'c1');
    await a.mutate('put', { key: 'k', value: 1 });
    await a.close();
    const b = await open('reopen-2', 'c2');
    expect(await b.query((tx) => tx.get('k'))).toBe(1);
    expect(b.pendingMutations()).toEqual([{ id: 1, clientID: 'c1', name: 'put', args: { key: 'k', value: 1 }, timestamp: 1 }]);
    await b.mutate('put', { key: 'j', value: 2 });
    expect(b.pendingMutations().map((m) => [m.clientID, m.id])).toEqual([
      ['c1', 1],
      ['c2', 1],
    ]);
    await b.close();
  });

  it('reopening with new index definitions rebuilds the indexes', async () => {
    const a = await open('reopen-3');
    await a.mutate('put', { key: 'u1', value: { name: 'ann' } });
    await a.close();
    const b = await open('reopen-3', 'c1', { byName: { jsonPointer: '/name' } });
    expect(await b.query((tx) => tx.scan({ indexName: 'byName' }).keys().toArray())).toEqual([['ann', 'u1']]);
    await b.mutate('put', { key: 'u2', value: { name: 'bo' } });
    await b.close();
    const c = await open('reopen-3', 'c1', { byName: { jsonPointer: '/name' } });
    expect(await c.query((tx) => tx.scan({ indexName: 'byName' }).keys().toArray())).toEqual([
      ['ann', 'u1'],
      ['bo', 'u2'],
    ]);
    expect(c.pendingMutations().map((m) => m.id)).toEqual([1, 2]);
    await c.close();
  });

  it('reopening with new index definitions rebuilds the indexes over several pending mutations (replayed: only the head kept its trees)', async () => {
    const a = await open('reopen-5');
    await a.mutate('put', { key: 'u1', value: { name: 'ann' } });
    await a.mutate('put', { key: 'u2', value: { name: 'bo' } });
    await a.mutate('del', 'u1');
    await a.close();
    const b = await open('reopen-5', 'c1', { byName: { jsonPointer: '/name' } });
    expect(await b.query((tx) => tx.scan({ indexName: 'byName' }).keys().toArray())).toEqual([['bo', 'u2']]);
    expect(b.pendingMutations().map((m) => m.id)).toEqual([1, 2, 3]);
    await b.close();
  });

  it('persists in the background through the scheduler', async () => {
    const timers = new ManualTimers();
    const a = await createStore({ name: 'reopen-4', clientID: 'c1', mutators: basicMutators, timers, logger: new RecordingLogger() });
    await a.mutate('put', { key: 'k', value: 1 });
    expect(timers.pending.size).toBe(1);
    timers.runAll();
    await a.persist();
    const b = await createStore({ name: 'reopen-4', clientID: 'c1', mutators: basicMutators, timers: new ManualTimers(), logger: new RecordingLogger() });
    expect(await b.query((tx) => tx.get('k'))).toBe(1);
    await b.close();
    await a.close();
  });
});
