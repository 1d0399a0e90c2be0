import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../kv/idb-store';
import { MemoryStore } from '../kv/memory-store';
import type { KvRead, KvStore } from '../kv/types';
import { estimateChunkSize } from './chunk-size';
import { LazyDagStore } from './lazy-store';
import { PersistentDagStore } from './store';
import type { DagStore, Hash } from './types';

const NAME = 'lazy-store-test';
afterEach(() => MemoryStore.drop(NAME));

/** Counts the kv gets that reach the underlying store. */
class CountingStore implements KvStore {
  gets = 0;
  constructor(private readonly inner: KvStore) {}
  get closed() {
    return this.inner.closed;
  }
  async read(): Promise<KvRead> {
    const r = await this.inner.read();
    return {
      has: (k) => r.has(k),
      get: (k) => {
        this.gets++;
        return r.get(k);
      },
      release: () => r.release(),
    };
  }
  write() {
    return this.inner.write();
  }
  close() {
    return this.inner.close();
  }
}

/** Writes `count` leaves under one root chunk at head `main`; returns the hashes. */
async function populate(dag: DagStore, count: number, payload = 'x') {
  return dag.withWrite(async (w) => {
    const leaves: Hash[] = [];
    for (let i = 0; i < count; i++) {
      const c = w.createChunk({ i, payload }, []);
      await w.putChunk(c);
      leaves.push(c.hash);
    }
    const root = w.createChunk('root', leaves);
    await w.putChunk(root);
    await w.setHead('main', root.hash);
    await w.commit();
    return { root: root.hash, leaves };
  });
}

describe('LazyDagStore', () => {
  it('keeps new chunks in memory until persist, collecting unreferenced ones', async () => {
    const kv = new MemoryStore(NAME);
    const lazy = new LazyDagStore(new PersistentDagStore(kv));
    const first = await populate(lazy, 3);
    expect(lazy.memoryOnlyChunkCount).toBe(4);
    expect(lazy.hasUnpersistedChanges).toBe(true);
    // Nothing reached kv yet.
    const r = await kv.read();
    expect(await r.get('h/main')).toBeUndefined();
    r.release();

    // Moving the head away collects the old tree from memory.
    const second = await populate(lazy, 2);
    expect(lazy.memoryOnlyChunkCount).toBe(3);
    await lazy.withRead(async (read) => {
      expect(await read.hasChunk(first.root)).toBe(false);
      expect(await read.hasChunk(first.leaves[0]!)).toBe(false);
      expect(await read.getHead('main')).toBe(second.root);
    });
  });

  it('a chunk shared by two heads survives removing one of them', async () => {
    const lazy = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
    const t = await populate(lazy, 2);
    await lazy.withWrite(async (w) => {
      await w.setHead('copy', t.root);
      await w.commit();
    });
    await lazy.withWrite(async (w) => {
      await w.removeHead('main');
      await w.commit();
    });
    await lazy.withRead(async (r) => {
      expect(await r.hasChunk(t.root)).toBe(true);
      expect(await r.hasChunk(t.leaves[1]!)).toBe(true);
    });
  });

  it('persist then reopen in a fresh store on the same MemoryStore name reads everything back', async () => {
    const lazy = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
    const t = await populate(lazy, 20);
    await lazy.persist();
    expect(lazy.memoryOnlyChunkCount).toBe(0);
    expect(lazy.hasUnpersistedChanges).toBe(false);
    // Still readable (now from the cache).
    await lazy.withRead(async (r) => expect((await r.mustGetChunk(t.leaves[3]!)).data).toEqual({ i: 3, payload: 'x' }));

    const fresh = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
    await fresh.withRead(async (r) => {
      expect(await r.getHead('main')).toBe(t.root);
      const root = await r.mustGetChunk(t.root);
      expect(root.refs).toEqual(t.leaves);
      for (const [i, h] of t.leaves.entries()) expect((await r.mustGetChunk(h)).data).toEqual({ i, payload: 'x' });
    });
  });

  it('persist then reopen on the same fake IndexedDB database reads everything back', async () => {
    const idbFactory = new IDBFactory();
    const kv = await openStore('lazy-idb', { idbFactory });
    const lazy = new LazyDagStore(new PersistentDagStore(kv));
    const t = await populate(lazy, 10);
    await lazy.persist();
    // A second commit on top, persisted too: the old root is collected on disk.
    const t2 = await populate(lazy, 5);
    await lazy.persist();
    await lazy.close();
    expect(kv.closed).toBe(true);

    const fresh = new LazyDagStore(new PersistentDagStore(await openStore('lazy-idb', { idbFactory })));
    await fresh.withRead(async (r) => {
      expect(await r.getHead('main')).toBe(t2.root);
      for (const [i, h] of t2.leaves.entries()) expect((await r.mustGetChunk(h)).data).toEqual({ i, payload: 'x' });
      expect(await r.hasChunk(t.root)).toBe(false);
      expect(await r.hasChunk(t.leaves[0]!)).toBe(false);
    });
    await fresh.close();
  });

  it('reads only what is touched, and serves repeated reads from the cache', async () => {
    const writer = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
    const t = await populate(writer, 50);
    await writer.persist();

    const counting = new CountingStore(new MemoryStore(NAME));
    const lazy = new LazyDagStore(new PersistentDagStore(counting));
    await lazy.withRead(async (r) => {
      await r.mustGetChunk(t.leaves[7]!);
    });
    const afterOne = counting.gets;
    expect(afterOne).toBeLessThanOrEqual(2); // data and refs of one chunk
    await lazy.withRead(async (r) => {
      await r.mustGetChunk(t.leaves[7]!);
    });
    expect(counting.gets).toBe(afterOne);
  });

  it('a persisted chunk the persistent store collects leaves the cache (forgetPersisted wired to onCollected)', async () => {
    let lazy: LazyDagStore | undefined;
    const perdag = new PersistentDagStore(new MemoryStore(NAME), { onCollected: (hash) => lazy?.forgetPersisted(hash) });
    lazy = new LazyDagStore(perdag);
    const t = await populate(lazy, 5);
    await lazy.persist();
    const cached = lazy.cachedBytes;
    expect(cached).toBeGreaterThan(0);
    // Another head keeps one leaf; the persistent head 'main' is removed behind the memory view's back.
    await perdag.withWrite(async (w) => {
      await w.setHead('keep', t.leaves[0]!);
      await w.removeHead('main');
      await w.commit();
    });
    await lazy.withRead(async (r) => {
      expect(lazy!.memoryChunk(t.root)).toBeUndefined();
      for (const leaf of t.leaves.slice(1)) expect(lazy!.memoryChunk(leaf)).toBeUndefined();
      expect(lazy!.memoryChunk(t.leaves[0]!)).toBeDefined();
      expect(await r.getChunk(t.leaves[0]!)).toBeDefined();
      expect(await r.getChunk(t.leaves[1]!)).toBeUndefined();
    });
    expect(lazy.cachedBytes).toBeLessThan(cached);
  });

  it('evicts least recently used chunks to stay under the cap, and reloads them', async () => {
    const writer = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
    const payload = 'p'.repeat(1000);
    const t = await populate(writer, 40, payload);
    await writer.persist();

    const leafSize = await writer.withRead(async (r) => estimateChunkSize(await r.mustGetChunk(t.leaves[0]!)));
    const cap = leafSize * 10;
    const counting = new CountingStore(new MemoryStore(NAME));
    const lazy = new LazyDagStore(new PersistentDagStore(counting), { cacheBytes: cap });
    await lazy.withRead(async (r) => {
      for (const h of t.leaves) {
        await r.mustGetChunk(h);
        expect(lazy.cachedBytes).toBeLessThanOrEqual(cap);
      }
    });
    expect(lazy.cachedBytes).toBeGreaterThan(cap / 2);
    const before = counting.gets;
    // The last one is cached, the first was evicted and comes back from storage.
    await lazy.withRead(async (r) => {
      await r.mustGetChunk(t.leaves[39]!);
      expect(counting.gets).toBe(before);
      expect((await r.mustGetChunk(t.leaves[0]!)).data).toEqual({ i: 0, payload });
      expect(counting.gets).toBeGreaterThan(before);
    });
  });

  it('commits during a persist are kept for the next one', async () => {
    const lazy = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
    await populate(lazy, 3);
    const persisting = lazy.persist();
    const t2 = await populate(lazy, 4);
    await persisting;
    expect(lazy.hasUnpersistedChanges).toBe(true);
    await lazy.persist();
    expect(lazy.memoryOnlyChunkCount).toBe(0);
    const fresh = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
    await fresh.withRead(async (r) => {
      expect(await r.getHead('main')).toBe(t2.root);
      for (const h of t2.leaves) expect(await r.hasChunk(h)).toBe(true);
    });
  });

  it('a new tree on top of persisted chunks persists only what is new and keeps the shared ones', async () => {
    const kv = new MemoryStore(NAME);
    const lazy = new LazyDagStore(new PersistentDagStore(kv));
    const t = await populate(lazy, 5);
    await lazy.persist();
    const newRoot = await lazy.withWrite(async (w) => {
      const extra = w.createChunk('extra', []);
      const root = w.createChunk('root2', [...t.leaves.slice(0, 2), extra.hash]);
      await w.putChunk(extra);
      await w.putChunk(root);
      await w.setHead('main', root.hash);
      await w.commit();
      return root.hash;
    });
    expect(lazy.memoryOnlyChunkCount).toBe(2);
    await lazy.persist();
    const fresh = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
    await fresh.withRead(async (r) => {
      expect(await r.getHead('main')).toBe(newRoot);
      expect(await r.hasChunk(t.leaves[0]!)).toBe(true);
      expect(await r.hasChunk(t.leaves[4]!)).toBe(false);
      expect(await r.hasChunk(t.root)).toBe(false);
    });
  });

  it('a chunk marked persisted without one of its children lets go of it: the child is collected once nothing else holds it', async () => {
    const dag = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
    const { root, leaves } = await populate(dag, 3);
    const kept = await dag.withWrite(async (w) => {
      const other = w.createChunk('other', [leaves[0]!]);
      await w.putChunk(other);
      await w.setHead('other', other.hash);
      await w.commit();
      return other.hash;
    });
    const rootChunk = await dag.withRead((r) => r.mustGetChunk(root));
    dag.markPersisted([rootChunk]);
    // Only 'other' holds a leaf now; the rest went with the root.
    expect(dag.memoryOnlyChunkCount).toBe(2);
    expect(dag.isMemoryOnly(leaves[0]!)).toBe(true);
    expect(dag.isMemoryOnly(kept)).toBe(true);
    expect(dag.isMemoryOnly(leaves[1]!)).toBe(false);
  });

  it('reads that miss a chunk while it loads wait for that load instead of reading it again', async () => {
    const writer = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
    const { root } = await populate(writer, 1);
    await writer.persist();
    const kv = new CountingStore(new MemoryStore(NAME));
    const reader = new LazyDagStore(new PersistentDagStore(kv));
    const reads = await Promise.all(Array.from({ length: 10 }, () => reader.withRead((r) => r.mustGetChunk(root))));
    expect(reads.every((c) => c.data === 'root')).toBe(true);
    // One chunk is two gets (its data and its refs).
    expect(kv.gets).toBe(2);
  });

  it('asks its scheduler for a persist after commits that move heads (the persist head, when given)', async () => {
    let asked = 0;
    const scheduler = { schedule: () => void asked++ };
    const lazy = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
    lazy.schedulePersists(scheduler);
    await populate(lazy, 1);
    await lazy.withWrite((w) => w.commit());
    expect(asked).toBe(1);

    let mainMoves = 0;
    const view = new LazyDagStore(new PersistentDagStore(new MemoryStore(`${NAME}-view`)));
    view.schedulePersists({ schedule: () => void mainMoves++ }, 'main');
    const moveHead = (name: string) =>
      view.withWrite(async (w) => {
        const c = w.createChunk(name, []);
        await w.putChunk(c);
        await w.setHead(name, c.hash);
        await w.commit();
      });
    await moveHead('scratch');
    expect(mainMoves).toBe(0);
    await moveHead('main');
    expect(mainMoves).toBe(1);
  });
});

describe('LazyDagStore with a long chain of commits', () => {
  it('persists a 20,000-chunk chain without deep recursion', async () => {
    const lazy = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
    const tip = await lazy.withWrite(async (w) => {
      let prev: Hash | undefined;
      for (let i = 0; i < 20_000; i++) {
        const c = w.createChunk(i, prev === undefined ? [] : [prev]);
        await w.putChunk(c);
        prev = c.hash;
      }
      await w.setHead('main', prev!);
      await w.commit();
      return prev!;
    });
    expect(lazy.memoryOnlyChunkCount).toBe(20_000);
    await lazy.persist();
    expect(lazy.memoryOnlyChunkCount).toBe(0);
    // Dropping the head collects the whole chain on disk too.
    await lazy.withWrite(async (w) => {
      await w.removeHead('main');
      await w.commit();
    });
    await lazy.persist();
    const fresh = new PersistentDagStore(new MemoryStore(NAME));
    await fresh.withRead(async (r) => {
      expect(await r.hasChunk(tip)).toBe(false);
      expect(await r.getHead('main')).toBeUndefined();
    });
  });
});
