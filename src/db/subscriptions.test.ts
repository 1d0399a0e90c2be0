import { describe, expect, it } from 'vitest';
import { makeTestStore } from './test-helpers';
import type { ReadTransaction, WriteTransaction } from './transaction-types';

async function settle() {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

describe('subscriptions', () => {
  it('a subscription reading key A is not re-run by a write to key B', async () => {
    const { store } = await makeTestStore();
    let runs = 0;
    const data: unknown[] = [];
    store.subscribe(
      (tx) => {
        runs++;
        return tx.get('A');
      },
      { onData: (d) => data.push(d) },
    );
    await settle();
    expect(runs).toBe(1);
    expect(data).toEqual([undefined]);
    await store.mutate('put', { key: 'B', value: 1 });
    await settle();
    expect(runs).toBe(1);
    await store.mutate('put', { key: 'A', value: 1 });
    await settle();
    expect(runs).toBe(2);
    expect(data).toEqual([undefined, 1]);
  });

  it('a prefix scan re-runs on writes inside the prefix only', async () => {
    const { store } = await makeTestStore();
    let runs = 0;
    const data: unknown[] = [];
    store.subscribe(
      (tx) => {
        runs++;
        return tx.scan({ prefix: 'p/' }).entries().toArray();
      },
      { onData: (d) => data.push(d) },
    );
    await settle();
    await store.mutate('put', { key: 'p', value: 0 });
    await store.mutate('put', { key: 'q/1', value: 0 });
    await store.mutate('put', { key: 'o/1', value: 0 });
    await settle();
    expect(runs).toBe(1);
    await store.mutate('put', { key: 'p/1', value: 1 });
    await settle();
    expect(runs).toBe(2);
    await store.mutate('del', 'p/1');
    await settle();
    expect(runs).toBe(3);
    expect(data).toEqual([[], [['p/1', 1]], []]);
  });

  it('a subscription whose scans change from run to run is re-run by what it scans now, not by what it scanned before', async () => {
    const { store } = await makeTestStore();
    let runs = 0;
    const data: unknown[] = [];
    store.subscribe(
      async (tx) => {
        runs++;
        const which = ((await tx.get('which')) as string | undefined) ?? 'a';
        const scans = [await tx.scan({ prefix: `${which}/` }).keys().toArray()];
        // A second scan on some runs only: the list of ranges grows and shrinks.
        if (which === 'c') scans.push(await tx.scan({ prefix: 'x/', limit: 1 }).keys().toArray());
        return scans;
      },
      { onData: (d) => data.push(d) },
    );
    await settle();
    await store.mutate('put', { key: 'which', value: 'b' });
    await settle();
    expect(runs).toBe(2);
    await store.mutate('put', { key: 'a/1', value: 1 });
    await settle();
    expect(runs).toBe(2);
    await store.mutate('put', { key: 'b/1', value: 1 });
    await settle();
    expect(runs).toBe(3);
    await store.mutate('put', { key: 'x/2', value: 1 });
    await settle();
    expect(runs).toBe(3);
    await store.mutate('put', { key: 'which', value: 'c' });
    await settle();
    expect(runs).toBe(4);
    // Before the last key the limited scan returned: re-runs; after it: does not.
    await store.mutate('put', { key: 'x/1', value: 1 });
    await settle();
    expect(runs).toBe(5);
    await store.mutate('put', { key: 'x/3', value: 1 });
    await settle();
    expect(runs).toBe(5);
    await store.mutate('put', { key: 'which', value: 'b' });
    await settle();
    expect(runs).toBe(6);
    await store.mutate('put', { key: 'x/0', value: 1 });
    await store.mutate('put', { key: 'c/1', value: 1 });
    await settle();
    expect(runs).toBe(6);
    expect(data).toEqual([[[]], [['b/1']], [[], ['x/2']], [[], ['x/1']], [['b/1']]]);
  });

  it('a limited scan ignores writes after the last key it returned', async () => {
    const { store } = await makeTestStore();
    for (const k of ['a', 'b', 'c', 'd']) await store.mutate('put', { key: k, value: k });
    let runs = 0;
    store.subscribe(
      (tx) => {
        runs++;
        return tx.scan({ limit: 2 }).keys().toArray();
      },
      { onData: () => {} },
    );
    await settle();
    await store.mutate('put', { key: 'c', value: 'C' });
    await store.mutate('put', { key: 'z', value: 'z' });
    await settle();
    expect(runs).toBe(1);
    await store.mutate('put', { key: 'b', value: 'B' });
    await settle();
    expect(runs).toBe(2);
  });

  it('does not call onData when the result is equal, and isEqual can be overridden', async () => {
    const { store } = await makeTestStore();
    const data: unknown[] = [];
    const always: unknown[] = [];
    const body = async (tx: ReadTransaction) => ({ hasA: (await tx.get('a')) !== undefined });
    store.subscribe(body, { onData: (d) => data.push(d) });
    store.subscribe(body, { onData: (d) => always.push(d), isEqual: () => false });
    await settle();
    await store.mutate('put', { key: 'a', value: [1] });
    await settle();
    await store.mutate('put', { key: 'a', value: [2] });
    await settle();
    expect(data).toEqual([{ hasA: false }, { hasA: true }]);
    expect(always).toEqual([{ hasA: false }, { hasA: true }, { hasA: true }]);
  });

  it('unsubscribe stops it and calls onDone', async () => {
    const { store } = await makeTestStore();
    const data: unknown[] = [];
    let done = 0;
    const unsubscribe = store.subscribe((tx) => tx.get('a'), { onData: (d) => data.push(d), onDone: () => done++ });
    await settle();
    unsubscribe();
    await store.mutate('put', { key: 'a', value: 1 });
    await settle();
    expect(data).toEqual([undefined]);
    expect(done).toBe(1);
  });

  it('reports a failing body through onError and keeps watching what it read', async () => {
    const { store } = await makeTestStore();
    const errors: unknown[] = [];
    const data: unknown[] = [];
    store.subscribe(
      async (tx) => {
        const v = await tx.get('a');
        if (v === undefined) throw new Error('no a');
        return v;
      },
      { onData: (d) => data.push(d), onError: (e) => errors.push(e) },
    );
    await settle();
    expect(errors).toHaveLength(1);
    await store.mutate('put', { key: 'a', value: 5 });
    await settle();
    expect(data).toEqual([5]);
  });

  it('index scans re-run on changes of their index only', async () => {
    const { store } = await makeTestStore({ indexes: { byColor: { jsonPointer: '/color', prefix: 'car/' } } });
    let runs = 0;
    const data: unknown[] = [];
    store.subscribe(
      (tx) => {
        runs++;
        return tx.scan({ indexName: 'byColor', prefix: 'red' }).keys().toArray();
      },
      { onData: (d) => data.push(d) },
    );
    await settle();
    await store.mutate('put', { key: 'car/1', value: { color: 'blue' } });
    await store.mutate('put', { key: 'bike/1', value: { color: 'red' } });
    await settle();
    expect(runs).toBe(1);
    await store.mutate('put', { key: 'car/2', value: { color: 'red' } });
    await settle();
    expect(data).toEqual([[], [['red', 'car/2']]]);
  });

  it('a mutation made while a subscription first runs is not missed', async () => {
    const { store } = await makeTestStore();
    const data: unknown[] = [];
    store.subscribe((tx) => tx.get('a'), { onData: (d) => data.push(d) });
    await store.mutate('put', { key: 'a', value: 1 });
    await settle();
    expect(data[data.length - 1]).toBe(1);
  });

  it('query runs one-off reads', async () => {
    const { store } = await makeTestStore();
    await store.mutate('put', { key: 'a', value: 1 });
    expect(await store.query((tx) => tx.get('a'))).toBe(1);
  });
});

describe('experimentalWatch', () => {
  it('delivers diffs with old and new values, never an empty one', async () => {
    const { store } = await makeTestStore();
    const diffs: unknown[] = [];
    store.experimentalWatch((d) => diffs.push(d), { prefix: 'a' });
    await store.mutate('put', { key: 'a1', value: 1 });
    await store.mutate('put', { key: 'b1', value: 1 });
    await store.mutate('put', { key: 'a1', value: 2 });
    await store.mutate('put', { key: 'a1', value: 2 });
    await store.mutate('del', 'a1');
    expect(diffs).toEqual([
      [{ op: 'add', key: 'a1', newValue: 1 }],
      [{ op: 'change', key: 'a1', oldValue: 1, newValue: 2 }],
      [{ op: 'del', key: 'a1', oldValue: 2 }],
    ]);
  });

  it('can start with the current values and watch an index', async () => {
    const { store } = await makeTestStore({ indexes: { byName: { jsonPointer: '/name' } } });
    await store.mutate('put', { key: 'u1', value: { name: 'ann' } });
    const diffs: unknown[] = [];
    const stop = store.experimentalWatch((d) => diffs.push(d), { indexName: 'byName', initialValuesInFirstDiff: true });
    await store.mutate('put', { key: 'u1', value: { name: 'bob' } });
    stop();
    await store.mutate('put', { key: 'u2', value: { name: 'cy' } });
    expect(diffs).toEqual([
      [{ op: 'add', key: ['ann', 'u1'], newValue: { name: 'ann' } }],
      [
        { op: 'del', key: ['ann', 'u1'], oldValue: { name: 'ann' } },
        { op: 'add', key: ['bob', 'u1'], newValue: { name: 'bob' } },
      ],
    ]);
  });
});

describe('experimentalWatch with initial values, stopped before they are read', () => {
  it('calls nothing when stopped in the tick it started (a free lock runs the initial read at once)', async () => {
    const { store } = await makeTestStore();
    await store.mutate('put', { key: 'k', value: 1 });
    const diffs: unknown[] = [];
    const stop = store.experimentalWatch((d) => diffs.push(d), { initialValuesInFirstDiff: true });
    stop();
    await store.mutate('put', { key: 'k', value: 2 });
    await settle();
    expect(diffs).toEqual([]);
  });

  it('calls nothing when stopped while the initial read is under way', async () => {
    const { store } = await makeTestStore();
    await store.mutate('put', { key: 'k', value: 1 });
    const diffs: unknown[] = [];
    let stop = (): void => {};
    // Queued behind this mutation's lock hold, the watch reads once it ends; the stop comes a turn into that read.
    const writing = store.mutate('put', { key: 'k', value: 2 });
    stop = store.experimentalWatch((d) => diffs.push(d), { initialValuesInFirstDiff: true });
    await writing;
    stop();
    await settle();
    await store.mutate('put', { key: 'k', value: 3 });
    await settle();
    expect(diffs).toEqual([]);
  });
});

describe('subscriptions re-run after one change', () => {
  it('share one read of the store', async () => {
    const { compareUTF8 } = await import('../btree/compare');
    const { readBTree, writeBTree } = await import('../btree/btree');
    const { LazyDagStore } = await import('../dag/lazy-store');
    const { PersistentDagStore } = await import('../dag/store');
    const { MemoryStore } = await import('../kv/memory-store');
    const { Database } = await import('./database');
    const { basicMutators, RecordingLogger } = await import('./test-helpers');
    const inner = new LazyDagStore(new PersistentDagStore(new MemoryStore(`shared-read-${Math.random()}`)));
    let reads = 0;
    const dag = Object.assign(Object.create(inner) as typeof inner, {
      read: () => (reads++, inner.read()),
      write: () => inner.write(),
      withRead: inner.withRead.bind(inner),
      withWrite: inner.withWrite.bind(inner),
    });
    const many = async (tx: WriteTransaction, n: number) => {
      for (let i = 0; i < n; i++) await tx.put(`p${i}/k`, i);
    };
    const db = await Database.open({ dag, clientID: 'c1', mutators: { ...basicMutators, many }, clock: () => 0, logger: new RecordingLogger(), compare: compareUTF8, readTree: readBTree, writeTree: writeBTree });
    const seen: number[] = [];
    let firstRuns!: () => void;
    const ranOnce = new Promise<void>((resolve) => (firstRuns = resolve));
    for (let p = 0; p < 10; p++) {
      db.subscribe((tx) => tx.scan({ prefix: `p${p}/` }).values().toArray(), {
        onData: () => {
          seen.push(p);
          if (seen.length === 10) firstRuns();
        },
      });
    }
    await ranOnce;
    reads = 0;
    await db.mutate('many', 10);
    expect(seen.length).toBe(20);
    expect(reads).toBe(1);
    await db.close();
  });
});
