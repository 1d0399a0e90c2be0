import { afterEach, describe, expect, it } from 'vitest';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { CorruptedStorageError } from '../dag/errors';
import { PersistentDagStore } from '../dag/store';
import type { Chunk, DagRead, Hash } from '../dag/types';
import { MemoryStore } from '../kv/memory-store';
import { readBTree, writeBTree } from './btree';
import { NODE_HINT, nodeFromChunk } from './node';
import type { BTreeReader, Entry } from './types';

const NAME = 'btree-test';
afterEach(() => MemoryStore.drop(NAME));

const dagStore = () => new PersistentDagStore(new MemoryStore(NAME));
const key = (i: number) => `k${String(i).padStart(5, '0')}`;

/** Builds a committed tree from entries; returns the store and root. */
async function build(entries: Iterable<readonly [string, ReadonlyJSONValue]>, base?: Hash, head = 'main') {
  const store = dagStore();
  const root = await store.withWrite(async (w) => {
    const tree = writeBTree(w, base);
    for (const [k, v] of entries) await tree.put(k, v);
    const root = await tree.flush();
    await w.setHead(head, root);
    await w.commit();
    return root;
  });
  return { store, root };
}

async function all(tree: BTreeReader, from?: string): Promise<Entry[]> {
  const out: Entry[] = [];
  for await (const e of tree.scan(from)) out.push(e);
  return out;
}

/** A DagRead that counts chunk loads. */
function counting(read: DagRead): DagRead & { loads: number } {
  const c = {
    loads: 0,
    hasChunk: (h: Hash) => read.hasChunk(h),
    getChunk: (h: Hash) => {
      c.loads++;
      return read.getChunk(h);
    },
    mustGetChunk: (h: Hash) => {
      c.loads++;
      return read.mustGetChunk(h);
    },
    getHead: (n: string) => read.getHead(n),
    release: () => read.release(),
  };
  return c;
}

describe('B+tree', () => {
  it('an empty tree flushes to a valid root chunk', async () => {
    const { store, root } = await build([]);
    await store.withRead(async (r) => {
      const chunk = await r.mustGetChunk(root);
      expect(nodeFromChunk(chunk).entries).toEqual([]);
      const tree = readBTree(r, root);
      expect(await tree.isEmpty()).toBe(true);
      expect(await all(tree)).toEqual([]);
      expect(await tree.get('a')).toBeUndefined();
    });
  });

  it('get, has, del and clear see buffered writes', async () => {
    const store = dagStore();
    await store.withWrite(async (w) => {
      const tree = writeBTree(w, undefined);
      await tree.put('a', 1);
      await tree.put('b', 2);
      expect(await tree.get('a')).toBe(1);
      expect(await tree.has('c')).toBe(false);
      expect(await tree.del('a')).toBe(true);
      expect(await tree.del('a')).toBe(false);
      expect(await tree.del('zzz')).toBe(false);
      expect(await tree.get('a')).toBeUndefined();
      expect(await all(tree)).toEqual([['b', 2]]);
      await tree.put('c', 3);
      expect(await tree.isEmpty()).toBe(false);
      await tree.clear();
      expect(await tree.isEmpty()).toBe(true);
      await tree.put('d', 4);
      expect(await all(tree)).toEqual([['d', 4]]);
    });
  });

  it('populates 10,000 keys in one transaction and reads them back in order', async () => {
    const { store, root } = await build(Array.from({ length: 10_000 }, (_, i) => [key(9_999 - i), { i }] as const));
    await store.withRead(async (r) => {
      const tree = readBTree(r, root);
      const entries = await all(tree);
      expect(entries).toHaveLength(10_000);
      expect(entries[0]).toEqual([key(0), { i: 9_999 }]);
      expect(entries.every((e, i) => e[0] === key(i))).toBe(true);
      expect(await tree.get(key(1234))).toEqual({ i: 9_999 - 1234 });
      expect(nodeFromChunk(await r.mustGetChunk(root)).level).toBeGreaterThan(0);
    });
  });

  it('scans from a key, and leaf by leaf', async () => {
    const { store, root } = await build(Array.from({ length: 2_000 }, (_, i) => [key(i * 2), 'x'.repeat(50)] as const));
    await store.withRead(async (r) => {
      const tree = readBTree(r, root);
      expect((await all(tree, key(1000)))[0]![0]).toBe(key(1000));
      expect((await all(tree, key(1001)))[0]![0]).toBe(key(1002));
      expect(await all(tree, 'z')).toEqual([]);
      expect((await all(tree, '')).length).toBe(2_000);
      let n = 0;
      let leaves = 0;
      for await (const [entries, start] of tree.leaves(key(1001))) {
        leaves++;
        n += entries.length - start;
      }
      expect(n).toBe(1_499); // keys 1002, 1004, … 3998
      expect(leaves).toBeGreaterThan(1);
      // An early break ends the scan cleanly.
      for await (const e of tree.scan()) {
        expect(e[0]).toBe(key(0));
        break;
      }
    });
  });

  it('diff skips subtrees the two trees share', async () => {
    const { store, root } = await build(Array.from({ length: 5_000 }, (_, i) => [key(i), 'v'.repeat(100)] as const));
    const changed = await store.withWrite(async (w) => {
      const tree = writeBTree(w, root);
      await tree.put(key(2500), 'changed');
      await tree.del(key(10));
      await tree.put('k99999', 'new');
      const r = await tree.flush();
      await w.setHead('other', r);
      await w.commit();
      return r;
    });
    await store.withRead(async (read) => {
      const r = counting(read);
      const ops = await readBTree(r, root).diff(readBTree(r, changed));
      expect(ops).toEqual([
        { op: 'del', key: key(10), oldValue: 'v'.repeat(100) },
        { op: 'change', key: key(2500), oldValue: 'v'.repeat(100), newValue: 'changed' },
        { op: 'add', key: 'k99999', newValue: 'new' },
      ]);
      // A few paths' worth of nodes, not the ~50 leaves of each tree.
      expect(r.loads).toBeLessThan(20);
      expect(await readBTree(r, changed).diff(readBTree(r, changed))).toEqual([]);
    });
  });

  it('diff against a reader of another kind falls back to scanning', async () => {
    const { store, root } = await build([
      ['a', 1],
      ['b', 2],
    ]);
    const other: BTreeReader = {
      get: async () => undefined,
      has: async () => false,
      isEmpty: async () => false,
      scan: async function* () {
        yield ['b', 3] as const;
        yield ['c', 4] as const;
      },
      diff: async () => [],
    };
    await store.withRead(async (r) => {
      expect(await readBTree(r, root).diff(other)).toEqual([
        { op: 'del', key: 'a', oldValue: 1 },
        { op: 'change', key: 'b', oldValue: 2, newValue: 3 },
        { op: 'add', key: 'c', newValue: 4 },
      ]);
    });
  });

  it('stores values as given, frozen ones included, and never changes them', async () => {
    const value = Object.freeze({ list: Object.freeze([1, 2, Object.freeze({ deep: 'x' })]) });
    const snapshot = JSON.stringify(value);
    const { store, root } = await build([
      ['frozen', value],
      ['other', 1],
    ]);
    await store.withRead(async (r) => {
      expect(await readBTree(r, root).get('frozen')).toBe(value);
    });
    expect(JSON.stringify(value)).toBe(snapshot);
  });

  it('a chunk that is not a node is corrupted storage', async () => {
    const store = dagStore();
    const bad = await store.withWrite(async (w) => {
      const chunk: Chunk = w.createChunk({ not: 'a node' }, []);
      await w.putChunk(chunk);
      await w.setHead('bad', chunk.hash);
      await w.commit();
      return chunk.hash;
    });
    await store.withRead(async (r) => {
      await expect(readBTree(r, bad).get('a')).rejects.toBeInstanceOf(CorruptedStorageError);
    });
  });

  it('a stored node read with its data alone (NODE_HINT) has the refs it was stored with, at every level', async () => {
    const { store, root } = await build(Array.from({ length: 10_000 }, (_, i) => [key(i), { i, text: 'v'.repeat(1_000) }] as const));
    await store.withRead(async (r) => {
      let level: Hash[] = [root];
      let internal = 0;
      let leaves = 0;
      while (level.length > 0) {
        const next: Hash[] = [];
        for (const hash of level) {
          const full = await r.mustGetChunk(hash);
          const fromData = await r.mustGetChunk(hash, NODE_HINT);
          expect(fromData.data).toEqual(full.data);
          expect(fromData.refs).toEqual(full.refs);
          if (full.refs.length > 0) internal++;
          else leaves++;
          next.push(...full.refs);
        }
        level = next;
      }
      // A tree of three levels or more: internal nodes below the root are checked too.
      expect(internal).toBeGreaterThan(1);
      expect(leaves).toBeGreaterThan(internal);
    });
  });

  it('an internal node whose entry holds no hash is corrupted storage when read with NODE_HINT', async () => {
    const store = dagStore();
    const bad = await store.withWrite(async (w) => {
      const chunk: Chunk = w.createChunk([1, [['a', 42]]], []);
      await w.putChunk(chunk);
      await w.setHead('bad', chunk.hash);
      await w.commit();
      return chunk.hash;
    });
    await store.withRead(async (r) => {
      await expect(r.getChunk(bad, NODE_HINT)).rejects.toBeInstanceOf(CorruptedStorageError);
    });
  });

  it('reopening a flushed tree and flushing without changes keeps the root', async () => {
    const { store, root } = await build([['a', 1]]);
    await store.withWrite(async (w) => {
      const tree = writeBTree(w, root);
      expect(await tree.flush()).toBe(root);
      await tree.del('missing');
      expect(await tree.flush()).toBe(root);
    });
  });
});

describe('B+tree writer under concurrent calls', () => {
  it('concurrent flushes, scans and puts agree', async () => {
    const store = dagStore();
    await store.withWrite(async (w) => {
      const tree = writeBTree(w, undefined);
      const puts = Array.from({ length: 500 }, (_, i) => tree.put(key(i), 'x'.repeat(200)));
      const [a, b] = await Promise.all([tree.flush(), tree.flush(), ...puts]);
      expect(a).toBe(b);
      const scanning = all(tree);
      await tree.put(key(1000), 'late');
      const [c, entries] = await Promise.all([tree.flush(), scanning]);
      expect(entries.length).toBeGreaterThanOrEqual(500);
      expect(await all(readBTree(w, c))).toHaveLength(501);
      expect(await tree.get(key(1000))).toBe('late');
    });
  });
});
