/**
 * The cost of a commit does not grow with the history behind it: moving a
 * head from a commit to a new commit that refers to it touches only the
 * chunks that changed. Measured by counting the chunk refs and kv reads the
 * ref counting asks for, never by timing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../kv/memory-store';
import type { KvRead, KvStore, KvWrite } from '../kv/types';
import { LazyDagStore } from './lazy-store';
import { computeRefCounts, type RefCountSource } from './ref-count';
import { PersistentDagStore } from './store';
import type { Chunk, DagStore, DagWrite, Hash } from './types';

const NAME = 'ref-count-test';
afterEach(() => MemoryStore.drop(NAME));

const CHAIN = 2_000;
/** Reads one commit of the chain may cost: a handful, whatever the chain length. */
const MAX_READS_PER_COMMIT = 8;

/** Counts the kv reads of every transaction, writes included. */
class CountingStore implements KvStore {
  reads = 0;
  constructor(private readonly inner: KvStore) {}
  get closed() {
    return this.inner.closed;
  }
  async read(): Promise<KvRead> {
    return this.#count(await this.inner.read());
  }
  async write(): Promise<KvWrite> {
    return this.#count(await this.inner.write());
  }
  close() {
    return this.inner.close();
  }
  #count<T extends KvRead>(t: T): T {
    const get = t.get.bind(t);
    const has = t.has.bind(t);
    t.get = (k) => (this.reads++, get(k));
    t.has = (k) => (this.reads++, has(k));
    return t;
  }
}

/** A chunk whose refs count how often they are looked at. */
function counted(chunk: Chunk, counter: { refs: number }): Chunk {
  return {
    hash: chunk.hash,
    data: chunk.data,
    get refs() {
      counter.refs++;
      return chunk.refs;
    },
  };
}

/** One commit of a chain: a value chunk and a commit chunk referring to it and to the previous commit. */
async function addCommit(w: DagWrite, previous: Hash | undefined, i: number, wrap: (c: Chunk) => Chunk = (c) => c): Promise<Hash> {
  const value = wrap(w.createChunk({ value: i }, []));
  const commit = wrap(w.createChunk({ commit: i }, previous === undefined ? [value.hash] : [previous, value.hash]));
  await w.putChunk(value);
  await w.putChunk(commit);
  await w.setHead('main', commit.hash);
  await w.commit();
  return commit.hash;
}

async function buildChain(dag: DagStore, n: number, wrap?: (c: Chunk) => Chunk, each?: (i: number) => Promise<void>): Promise<Hash> {
  let head: Hash | undefined;
  for (let i = 0; i < n; i++) {
    head = await dag.withWrite((w) => addCommit(w, head, i, wrap));
    await each?.(i);
  }
  return head!;
}

describe('computeRefCounts', () => {
  it('a head moving to a child of its old target walks nothing below it', async () => {
    const refs = new Map<Hash, readonly Hash[]>();
    const counts = new Map<Hash, number>();
    for (let i = 0; i < CHAIN; i++) {
      refs.set(`c${i}`, i === 0 ? [] : [`c${i - 1}`]);
      counts.set(`c${i}`, 1);
    }
    refs.set('new', [`c${CHAIN - 1}`]);
    counts.set('new', 0);
    const asked = { counts: 0, refs: 0 };
    const source: RefCountSource = {
      tracks: () => true,
      isNew: (h) => h === 'new',
      count: (h) => (asked.counts++, counts.get(h)!),
      refs: (h) => (asked.refs++, refs.get(h)!),
    };
    const result = await computeRefCounts(
      new Map([
        [`c${CHAIN - 1}`, -1],
        ['new', +1],
      ]),
      source,
    );
    expect(result).toEqual(new Map([['new', 1]]));
    expect(asked.refs).toBe(1);
    expect(asked.counts).toBe(1);
  });

  it('a replaced node and its replacement leave their shared children untouched', async () => {
    const source: RefCountSource = {
      tracks: () => true,
      isNew: (h) => h === 'root2',
      count: (h) => ({ root1: 1, root2: 0 })[h] ?? 1,
      refs: (h) => ({ root1: ['a', 'b', 'c'], root2: ['a', 'x', 'c'] })[h] ?? [],
    };
    const result = await computeRefCounts(
      new Map([
        ['root1', -1],
        ['root2', +1],
      ]),
      source,
    );
    expect(result).toEqual(
      new Map([
        ['root1', 0],
        ['root2', 1],
        ['x', 2],
        ['b', 0],
      ]),
    );
  });
});

describe('a long chain of commits', () => {
  it('persistent dag: each commit reads a bounded number of keys', async () => {
    const kv = new CountingStore(new MemoryStore(NAME));
    const dag = new PersistentDagStore(kv);
    const perCommit: number[] = [];
    let before = 0;
    await buildChain(dag, CHAIN, undefined, async () => {
      perCommit.push(kv.reads - before);
      before = kv.reads;
    });
    expect(Math.max(...perCommit)).toBeLessThanOrEqual(MAX_READS_PER_COMMIT);
  });

  it('lazy dag: each commit looks at the refs of a bounded number of chunks, and so does persist', async () => {
    const counter = { refs: 0 };
    const kv = new CountingStore(new MemoryStore(NAME));
    const dag = new LazyDagStore(new PersistentDagStore(kv));
    const PERSIST_EVERY = 500;
    const perCommit: number[] = [];
    const perPersist: number[] = [];
    let before = 0;
    await buildChain(
      dag,
      CHAIN,
      (c) => counted(c, counter),
      async (i) => {
        perCommit.push(counter.refs - before);
        before = counter.refs;
        if (i % PERSIST_EVERY === PERSIST_EVERY - 1) {
          const reads = kv.reads;
          await dag.persist();
          perPersist.push(kv.reads - reads + counter.refs - before);
          before = counter.refs;
        }
      },
    );
    expect(Math.max(...perCommit)).toBeLessThanOrEqual(MAX_READS_PER_COMMIT);
    // A persist handles the commits made since the last one: 2 chunks each.
    for (const n of perPersist) expect(n).toBeLessThanOrEqual(PERSIST_EVERY * 2 * MAX_READS_PER_COMMIT);
    expect(dag.memoryOnlyChunkCount).toBe(0);
  });
});
