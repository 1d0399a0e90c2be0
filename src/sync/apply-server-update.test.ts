import { describe, expect, it } from 'vitest';
import { basicMutators, makeTestStore } from '../db/test-helpers';
import type { WriteTransaction } from '../db/transaction-types';
import { OverlappingSyncError, UnexpectedBaseCookieError, WrongSyncHeadError } from './errors';
import { createStore } from '../db/store';
import { MemoryStore } from '../kv/memory-store';

const entries = (store: Awaited<ReturnType<typeof makeTestStore>>['store']) =>
  store.query((tx) => tx.scan().entries().toArray());

describe('applyServerUpdate', () => {
  it('applies a patch on top of the matching base cookie and moves the cookie', async () => {
    const { store } = await makeTestStore();
    expect(store.cookie).toBe(null);
    await store.applyServerUpdate({
      baseCookie: null,
      cookie: 1,
      lastMutationIDChanges: {},
      patch: [
        { op: 'put', key: 'a', value: 1 },
        { op: 'put', key: 'b', value: { x: [1] } },
      ],
    });
    expect(store.cookie).toBe(1);
    await store.applyServerUpdate({ baseCookie: 1, cookie: 2, lastMutationIDChanges: {}, patch: [{ op: 'del', key: 'a' }] });
    expect(await entries(store)).toEqual([['b', { x: [1] }]]);
    await store.applyServerUpdate({
      baseCookie: 2,
      cookie: 3,
      lastMutationIDChanges: {},
      patch: [{ op: 'clear' }, { op: 'put', key: 'c', value: true }],
    });
    expect(await entries(store)).toEqual([['c', true]]);
  });

  it('refuses an update whose base cookie is not the local cookie', async () => {
    const { store } = await makeTestStore();
    const err = await store
      .applyServerUpdate({ baseCookie: 5, cookie: 6, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'a', value: 1 }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedBaseCookieError);
    expect((err as UnexpectedBaseCookieError).kind).toBe('UnexpectedBaseCookie');
    expect(store.cookie).toBe(null);
    expect(await entries(store)).toEqual([]);
  });

  it('refuses a concurrent application with "Overlapping sync"', async () => {
    const { store } = await makeTestStore();
    const first = store.applyServerUpdate({ baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [] });
    const second = store.applyServerUpdate({ baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [] });
    await expect(second).rejects.toThrow(OverlappingSyncError);
    await expect(second).rejects.toThrow('Overlapping sync');
    await first;
    expect(store.cookie).toBe(1);
  });

  it('drops acknowledged mutations and replays the rest with reason rebase', async () => {
    const reasons: string[] = [];
    const { store } = await makeTestStore({
      mutators: {
        append: async (tx: WriteTransaction, s: string) => {
          reasons.push(`${tx.mutationID}:${tx.reason}`);
          await tx.put('log', `${(await tx.get('log')) ?? ''}${s}`);
        },
      },
    });
    await store.mutate('append', 'a');
    await store.mutate('append', 'b');
    await store.mutate('append', 'c');
    expect(store.lastMutationID).toBe(0);
    await store.applyServerUpdate({
      baseCookie: null,
      cookie: 1,
      lastMutationIDChanges: { c1: 1 },
      patch: [{ op: 'put', key: 'log', value: 'S' }],
    });
    expect(await store.query((tx) => tx.get('log'))).toBe('Sbc');
    expect(store.pendingMutations().map((m) => m.id)).toEqual([2, 3]);
    expect(store.lastMutationID).toBe(1);
    expect(reasons).toEqual(['1:initial', '2:initial', '3:initial', '2:rebase', '3:rebase']);
    await store.mutate('append', 'd');
    expect(store.pendingMutations().map((m) => m.id)).toEqual([2, 3, 4]);
  });

  it('ignores a lower lastMutationID, with the SPEC log line', async () => {
    const { store, logger } = await makeTestStore();
    await store.mutate('put', { key: 'a', value: 1 });
    await store.mutate('put', { key: 'b', value: 1 });
    await store.applyServerUpdate({ baseCookie: null, cookie: 1, lastMutationIDChanges: { c1: 2 }, patch: [] });
    expect(store.pendingMutations()).toEqual([]);
    await store.applyServerUpdate({ baseCookie: 1, cookie: 2, lastMutationIDChanges: { c1: 1 }, patch: [] });
    expect(store.lastMutationID).toBe(2);
    expect(logger.errors.some((m) => m.startsWith('Received lastMutationID 1 is < than last snapshot'))).toBe(true);
  });

  it('a mutator missing at replay is logged and skipped; the mutation stays pending', async () => {
    const kv = new MemoryStore('missing-mutator');
    const { store } = await makeTestStore({ kvStore: kv });
    await store.mutate('put', { key: 'a', value: 1 });
    await store.close();
    const { store: reopened, logger } = await makeTestStore({ kvStore: new MemoryStore('missing-mutator'), mutators: {} });
    await reopened.applyServerUpdate({ baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'b', value: 2 }] });
    expect(logger.errors.some((m) => m.includes('no mutator named put'))).toBe(true);
    expect(await reopened.query((tx) => tx.scan().entries().toArray())).toEqual([['b', 2]]);
    expect(reopened.pendingMutations().map((m) => m.id)).toEqual([1]);
  });

  it('a mutator throwing at replay is logged; its mutation stays pending and changes nothing', async () => {
    const { store, logger } = await makeTestStore({
      mutators: {
        fragile: async (tx: WriteTransaction) => {
          if (tx.reason === 'rebase') throw new Error('cannot replay');
          await tx.put('f', 1);
        },
      },
    });
    await store.mutate('fragile');
    await store.applyServerUpdate({ baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [] });
    expect(logger.errors.some((m) => m.includes('threw while replaying'))).toBe(true);
    expect(await store.query((tx) => tx.has('f'))).toBe(false);
    expect(store.pendingMutations().map((m) => m.id)).toEqual([1]);
  });

  it('a mutator that writes and then throws at replay leaves none of its writes (nor index entries); the mutations after it still run', async () => {
    const { store } = await makeTestStore({
      indexes: { byOwner: { jsonPointer: '/owner' } },
      mutators: {
        ...basicMutators,
        halfway: async (tx: WriteTransaction) => {
          await tx.put('h', { owner: 'half' });
          await tx.del('a');
          if (tx.reason === 'rebase') throw new Error('cannot replay');
        },
      },
    });
    await store.mutate('put', { key: 'a', value: { owner: 'ann' } });
    await store.mutate('halfway');
    await store.mutate('put', { key: 'b', value: { owner: 'bo' } });
    await store.applyServerUpdate({ baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [] });
    expect(await store.query((tx) => tx.scan().keys().toArray())).toEqual(['a', 'b']);
    expect(await store.query((tx) => tx.scan({ indexName: 'byOwner' }).keys().toArray())).toEqual([
      ['ann', 'a'],
      ['bo', 'b'],
    ]);
    expect(store.pendingMutations().map((m) => m.id)).toEqual([1, 2, 3]);
  });

  it('tells the pusher about each local mutation', async () => {
    let calls = 0;
    const { store } = await makeTestStore({ onLocalMutation: () => calls++ });
    await store.mutate('put', { key: 'a', value: 1 });
    await store.applyServerUpdate({ baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [] });
    await store.mutate('put', { key: 'b', value: 1 });
    expect(calls).toBe(2);
  });

  it('fires subscriptions once with one consistent state', async () => {
    const { store } = await makeTestStore();
    await store.mutate('put', { key: 'a', value: 'local' });
    const seen: unknown[] = [];
    store.subscribe((tx) => tx.scan().entries().toArray(), { onData: (d) => seen.push(d) });
    await new Promise((r) => setImmediate(r));
    await store.applyServerUpdate({
      baseCookie: null,
      cookie: 1,
      lastMutationIDChanges: { c1: 1 },
      patch: [
        { op: 'put', key: 'a', value: 'server' },
        { op: 'put', key: 'b', value: 'server' },
      ],
    });
    expect(seen).toEqual([
      [['a', 'local']],
      [
        ['a', 'server'],
        ['b', 'server'],
      ],
    ]);
  });

  it('a sync head moved under us is "Wrong sync head"', async () => {
    const { beginSync } = await import('./begin-sync');
    const { endSync } = await import('./end-sync');
    const { Database } = await import('../db/database');
    const { SYNC_HEAD } = await import('../db/commit');
    const { readBTree, writeBTree } = await import('../btree/btree');
    const { compareUTF8 } = await import('../btree/compare');
    const { LazyDagStore } = await import('../dag/lazy-store');
    const { PersistentDagStore } = await import('../dag/store');
    const dag = new LazyDagStore(new PersistentDagStore(new MemoryStore('wrong-sync-head')));
    const db = await Database.open({
      dag,
      clientID: 'c1',
      mutators: {},
      clock: () => 0,
      logger: { error() {}, warn() {} },
      compare: compareUTF8,
      readTree: readBTree,
      writeTree: writeBTree,
    });
    const start = await beginSync(db, { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [] });
    await dag.withWrite(async (w) => {
      await w.setHead(SYNC_HEAD, db.headCommit.hash);
      await w.commit();
    });
    await expect(endSync(db, start)).rejects.toThrow(WrongSyncHeadError);
    await expect(endSync(db, start)).rejects.toThrow('Wrong sync head');
    expect(db.cookie).toBe(null);
  });

  it('keeps mutations made between the two halves of a sync', async () => {
    const { beginSync } = await import('./begin-sync');
    const { endSync } = await import('./end-sync');
    const { store } = await makeTestStore();
    const db = (store as unknown as { db: import('../db/database').Database }).db;
    const start = await beginSync(db, { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 's', value: 1 }] });
    await store.mutate('put', { key: 'l', value: 2 });
    await endSync(db, start);
    expect(await store.query((tx) => tx.scan().entries().toArray())).toEqual([
      ['l', 2],
      ['s', 1],
    ]);
    expect(store.pendingMutations().map((m) => m.id)).toEqual([1]);
  });
});

describe('the change a server update makes', () => {
  for (const pending of [false, true]) {
    it(`is the patch's net effect, to watchers (primary and index) and subscriptions (${pending ? 'a mutation pending, rebased' : 'nothing pending'})`, async () => {
      const { store } = await makeTestStore({ indexes: { byOwner: { jsonPointer: '/owner' } } });
      await store.applyServerUpdate({
        baseCookie: null,
        cookie: 1,
        lastMutationIDChanges: {},
        patch: [
          { op: 'put', key: 'a', value: { owner: 'x' } },
          { op: 'put', key: 'b', value: { owner: 'y' } },
        ],
      });
      if (pending) await store.mutate('put', { key: 'm', value: { owner: 'm' } });
      const diffs: unknown[] = [];
      const indexDiffs: unknown[] = [];
      const seen: unknown[] = [];
      store.experimentalWatch((d) => diffs.push(d));
      store.experimentalWatch((d) => indexDiffs.push(d), { indexName: 'byOwner' });
      store.subscribe((tx) => tx.scan({ prefix: 'a' }).entries().toArray(), { onData: (d) => seen.push(d) });
      await new Promise((r) => setImmediate(r));
      await store.applyServerUpdate({
        baseCookie: 1,
        cookie: 2,
        lastMutationIDChanges: {},
        patch: [
          { op: 'put', key: 'a', value: { owner: 'x' } },
          { op: 'put', key: 'c', value: 1 },
          { op: 'del', key: 'c' },
          { op: 'del', key: 'q' },
          { op: 'put', key: 'b', value: { owner: 'z' } },
          { op: 'put', key: 'd', value: 1 },
          { op: 'put', key: 'd', value: 2 },
        ],
      });
      expect(diffs).toEqual([
        [
          { op: 'change', key: 'b', oldValue: { owner: 'y' }, newValue: { owner: 'z' } },
          { op: 'add', key: 'd', newValue: 2 },
        ],
      ]);
      expect(indexDiffs).toEqual([
        [
          { op: 'del', key: ['y', 'b'], oldValue: { owner: 'y' } },
          { op: 'add', key: ['z', 'b'], newValue: { owner: 'z' } },
        ],
      ]);
      // Only its first run: 'a' is put again with an equal value, which changes nothing.
      expect(seen).toEqual([[['a', { owner: 'x' }]]]);
      await store.applyServerUpdate({
        baseCookie: 2,
        cookie: 3,
        lastMutationIDChanges: {},
        patch: [
          { op: 'put', key: 'a', value: { owner: 'x' } },
          { op: 'put', key: 'c', value: 1 },
          { op: 'del', key: 'c' },
        ],
      });
      expect(diffs).toHaveLength(1);
      expect(indexDiffs).toHaveLength(1);
      expect(seen).toHaveLength(1);
      expect(await store.query((tx) => tx.scan().keys().toArray())).toEqual(pending ? ['a', 'b', 'd', 'm'] : ['a', 'b', 'd']);
      expect(store.pendingMutations()).toHaveLength(pending ? 1 : 0);
    });
  }
});

describe('createStore', () => {
  it('requires a name without a kv store', async () => {
    await expect(createStore({ clientID: 'c', logger: { error() {}, warn() {} } })).rejects.toThrow(
      'name is required and must be non-empty',
    );
  });
});
