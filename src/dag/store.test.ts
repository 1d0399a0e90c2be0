import { afterEach, describe, expect, it } from 'vitest';
import { REF_COUNT_MAX } from '../../protocol/constants';
import { MemoryStore } from '../kv/memory-store';
import { ChunkNotFoundError, CorruptedStorageError } from './errors';
import { chunkDataKey, chunkRefCountKey, chunkRefsKey } from './key-layout';
import { PersistentDagStore } from './store';
import type { Hash } from './types';

const NAME = 'dag-store-test';
afterEach(() => MemoryStore.drop(NAME));

function setup() {
  const kv = new MemoryStore(NAME);
  return { kv, dag: new PersistentDagStore(kv) };
}

async function rawGet(kv: MemoryStore, key: string) {
  const r = await kv.read();
  try {
    return await r.get(key);
  } finally {
    r.release();
  }
}

async function rawPut(kv: MemoryStore, key: string, value: number | string) {
  const w = await kv.write();
  await w.put(key, value);
  await w.commit();
}

/** Builds leaf ← mid ← root, returns the hashes. */
async function tree(dag: PersistentDagStore, head: string, sharedLeaf?: Hash) {
  return dag.withWrite(async (w) => {
    let leaf = sharedLeaf;
    if (leaf === undefined) {
      const c = w.createChunk({ leaf: head }, []);
      await w.putChunk(c);
      leaf = c.hash;
    }
    const mid = w.createChunk(['mid', head], [leaf]);
    const root = w.createChunk({ root: head }, [mid.hash]);
    await w.putChunk(mid);
    await w.putChunk(root);
    await w.setHead(head, root.hash);
    await w.commit();
    return { leaf, mid: mid.hash, root: root.hash };
  });
}

describe('PersistentDagStore', () => {
  it('stores chunks and heads and reads them back', async () => {
    const { dag } = setup();
    const t = await tree(dag, 'main');
    await dag.withRead(async (r) => {
      expect(await r.getHead('main')).toBe(t.root);
      expect(await r.getHead('other')).toBeUndefined();
      const root = await r.mustGetChunk(t.root);
      expect(root.data).toEqual({ root: 'main' });
      expect(root.refs).toEqual([t.mid]);
      expect((await r.getChunk(t.leaf))?.refs).toEqual([]);
      expect(await r.hasChunk(t.mid)).toBe(true);
      await expect(r.mustGetChunk('nope')).rejects.toBeInstanceOf(ChunkNotFoundError);
    });
  });

  it('counts head and chunk references', async () => {
    const { kv, dag } = setup();
    const t = await tree(dag, 'main');
    expect(await rawGet(kv, chunkRefCountKey(t.root))).toBe(1);
    expect(await rawGet(kv, chunkRefCountKey(t.mid))).toBe(1);
    expect(await rawGet(kv, chunkRefCountKey(t.leaf))).toBe(1);
    expect(await rawGet(kv, chunkRefsKey(t.leaf))).toBeUndefined();
    await dag.withWrite(async (w) => {
      await w.setHead('second', t.root);
      await w.commit();
    });
    expect(await rawGet(kv, chunkRefCountKey(t.root))).toBe(2);
    expect(await rawGet(kv, chunkRefCountKey(t.mid))).toBe(1);
  });

  it('does not write chunks nothing refers to', async () => {
    const { kv, dag } = setup();
    const hash = await dag.withWrite(async (w) => {
      const orphan = w.createChunk('orphan', []);
      await w.putChunk(orphan);
      expect(await w.hasChunk(orphan.hash)).toBe(true);
      await w.commit();
      return orphan.hash;
    });
    expect(await rawGet(kv, chunkDataKey(hash))).toBeUndefined();
  });

  it('removing a head deletes its chunks recursively; a chunk shared by two trees survives', async () => {
    const { kv, dag } = setup();
    const a = await tree(dag, 'a');
    const b = await tree(dag, 'b', a.leaf);
    expect(await rawGet(kv, chunkRefCountKey(a.leaf))).toBe(2);

    await dag.withWrite(async (w) => {
      await w.removeHead('a');
      await w.commit();
    });
    await dag.withRead(async (r) => {
      expect(await r.getHead('a')).toBeUndefined();
      expect(await r.hasChunk(a.root)).toBe(false);
      expect(await r.hasChunk(a.mid)).toBe(false);
      expect(await r.hasChunk(a.leaf)).toBe(true);
      expect(await r.hasChunk(b.root)).toBe(true);
    });
    expect(await rawGet(kv, chunkRefCountKey(a.root))).toBeUndefined();
    expect(await rawGet(kv, chunkRefsKey(a.root))).toBeUndefined();
    expect(await rawGet(kv, chunkRefCountKey(a.leaf))).toBe(1);

    await dag.withWrite(async (w) => {
      await w.removeHead('b');
      await w.commit();
    });
    await dag.withRead(async (r) => {
      for (const h of [b.root, b.mid, a.leaf]) expect(await r.hasChunk(h)).toBe(false);
    });
  });

  it('tells onCollected of each chunk a committed write deleted, and of none for a write released without commit', async () => {
    const kv = new MemoryStore(NAME);
    const collected: Hash[] = [];
    const dag = new PersistentDagStore(kv, { onCollected: (hash) => collected.push(hash) });
    const a = await tree(dag, 'a');
    const b = await tree(dag, 'b', a.leaf);
    const w = await dag.write();
    await w.removeHead('a');
    w.release();
    expect(collected).toEqual([]);

    await dag.withWrite(async (w2) => {
      await w2.removeHead('a');
      await w2.commit();
    });
    expect(collected.sort()).toEqual([a.root, a.mid].sort());
    collected.length = 0;
    await dag.withWrite(async (w2) => {
      await w2.removeHead('b');
      await w2.commit();
    });
    expect(collected.sort()).toEqual([b.root, b.mid, a.leaf].sort());
  });

  it('moving a head to a new tree that reuses old chunks keeps them and drops the rest', async () => {
    const { dag } = setup();
    const first = await tree(dag, 'main');
    const next = await dag.withWrite(async (w) => {
      const root = w.createChunk('v2', [first.mid]);
      await w.putChunk(root);
      await w.setHead('main', root.hash);
      await w.commit();
      return root.hash;
    });
    await dag.withRead(async (r) => {
      expect(await r.hasChunk(first.root)).toBe(false);
      expect(await r.hasChunk(first.mid)).toBe(true);
      expect(await r.hasChunk(first.leaf)).toBe(true);
      expect(await r.hasChunk(next)).toBe(true);
    });
  });

  it('an uncommitted write changes nothing', async () => {
    const { dag } = setup();
    const t = await tree(dag, 'main');
    const w = await dag.write();
    await w.removeHead('main');
    w.release();
    await dag.withRead(async (r) => {
      expect(await r.getHead('main')).toBe(t.root);
      expect(await r.hasChunk(t.leaf)).toBe(true);
    });
  });

  it.each([[-1], [1.5], [REF_COUNT_MAX + 1], ['3']])('rejects a stored ref count of %j as corrupted storage', async (bad) => {
    const { kv, dag } = setup();
    const t = await tree(dag, 'main');
    await rawPut(kv, chunkRefCountKey(t.root), bad);
    const w = await dag.write();
    await w.removeHead('main');
    await expect(w.commit()).rejects.toBeInstanceOf(CorruptedStorageError);
    w.release();
    await expect(
      dag.withWrite(async (w2) => {
        await w2.setHead('other', t.root);
        await w2.commit();
      }),
    ).rejects.toThrow('Ref counts must be an integer from 0 to 65535');
    // Nothing was deleted on the strength of the bad count.
    await dag.withRead(async (r) => expect(await r.hasChunk(t.leaf)).toBe(true));
  });

  it('accepts the largest allowed count and refuses to go past it', async () => {
    const { kv, dag } = setup();
    const t = await tree(dag, 'main');
    await rawPut(kv, chunkRefCountKey(t.root), REF_COUNT_MAX);
    await expect(
      dag.withWrite(async (w) => {
        await w.setHead('one-more', t.root);
        await w.commit();
      }),
    ).rejects.toMatchObject({ kind: 'RefCountOverflow' });
  });

  it('rejects a head that is not a hash', async () => {
    const { kv, dag } = setup();
    const w = await kv.write();
    await w.put('h/main', 42);
    await w.commit();
    await expect(dag.withRead((r) => r.getHead('main'))).rejects.toBeInstanceOf(CorruptedStorageError);
  });

  it('a chunk put as new has its count start from 0 without a read; the others are read in one round', async () => {
    const kv = new MemoryStore(NAME);
    const asked: string[] = [];
    const counting = Object.assign(Object.create(kv) as MemoryStore, {
      write: async () => {
        const w = await kv.write();
        const get = w.get.bind(w);
        return Object.assign(w, { get: (key: string) => (asked.push(key), get(key)) });
      },
    });
    const dag = new PersistentDagStore(counting);
    const hashes = await dag.withWrite(async (w) => {
      const leaf = w.createChunk('leaf', []);
      const root = w.createChunk('root', [leaf.hash]);
      await w.putNewChunk(leaf);
      await w.putChunk(root);
      await w.setHead('main', root.hash);
      await w.commit();
      return { leaf: leaf.hash, root: root.hash };
    });
    expect(asked.filter((key) => key.endsWith('/n'))).toEqual([chunkRefCountKey(hashes.root)]);
    expect(await rawGet(kv, chunkRefCountKey(hashes.leaf))).toBe(1);
    expect(await rawGet(kv, chunkRefCountKey(hashes.root))).toBe(1);
  });

  it('a head removed while absent, or set to the target it has, is not written; a moved head is', async () => {
    const kv = new MemoryStore(NAME);
    const written: string[] = [];
    const counting = Object.assign(Object.create(kv) as MemoryStore, {
      write: async () => {
        const w = await kv.write();
        const put = w.put.bind(w);
        const del = w.del.bind(w);
        return Object.assign(w, {
          put: (key: string, value: never) => (written.push(`put ${key}`), put(key, value)),
          del: (key: string) => (written.push(`del ${key}`), del(key)),
        });
      },
    });
    const dag = new PersistentDagStore(counting);
    const { root } = await tree(dag, 'main');
    written.length = 0;
    await dag.withWrite(async (w) => {
      await w.removeHead('never-there');
      await w.setHead('main', root);
      await w.commit();
    });
    expect(written).toEqual([]);
    await dag.withWrite(async (w) => {
      await w.setHead('side', root);
      await w.commit();
    });
    expect(written.filter((e) => e.includes('side'))).toEqual(['put h/side']);
    expect(await rawGet(kv, chunkRefCountKey(root))).toBe(2);
    await dag.withWrite(async (w) => {
      await w.removeHead('side');
      await w.commit();
    });
    expect(written.filter((e) => e.includes('side'))).toEqual(['put h/side', 'del h/side']);
    expect(await rawGet(kv, chunkRefCountKey(root))).toBe(1);
  });

  it('close closes the kv store', async () => {
    const { kv, dag } = setup();
    await dag.close();
    expect(kv.closed).toBe(true);
  });
});
