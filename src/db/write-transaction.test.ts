/**
 * A put over nodes at hand is written at once; one that must wait for a node
 * waits, and while it does the later writes of the transaction take the
 * waiting way too (as every write did before puts could be written at once).
 */
import { describe, expect, it } from 'vitest';
import { writeBTree } from '../btree/btree';
import { compareUTF8 } from '../btree/compare';
import { NOT_AT_HAND, type BTreeWriter } from '../btree/types';
import { LazyDagStore } from '../dag/lazy-store';
import { PersistentDagStore } from '../dag/store';
import type { Hash } from '../dag/types';
import { MemoryStore } from '../kv/memory-store';
import { MapReaders } from './map-access';
import { WriteTransactionImpl } from './write-transaction';

/** A tree of `keys` stored in a persistent dag, and a fresh memory layer over it that has read none of its nodes. */
async function storedTree(keys: readonly string[]): Promise<{ dag: LazyDagStore; root: Hash }> {
  const kv = new MemoryStore(`write-transaction-${Math.random()}`);
  const root = await new PersistentDagStore(kv).withWrite(async (w) => {
    const tree = writeBTree(w, undefined);
    for (const key of keys) await tree.put(key, `old ${key}`);
    const hash = await tree.flush();
    await w.setHead('main', hash);
    await w.commit();
    return hash;
  });
  return { dag: new LazyDagStore(new PersistentDagStore(kv)), root };
}

function transaction(tree: BTreeWriter): WriteTransactionImpl {
  return new WriteTransactionImpl('c1', 'initial', 1, new MapReaders(tree, new Map(), () => tree), compareUTF8, [], undefined);
}

describe('write transaction puts', () => {
  it('a put over nodes at hand is in the tree at once, with its change', async () => {
    const dag = new LazyDagStore(new PersistentDagStore(new MemoryStore(`write-transaction-${Math.random()}`)));
    const w = await dag.write();
    const tree = writeBTree(w, undefined);
    const tx = transaction(tree);
    const put = tx.put('a', 1);
    expect(tree.getNow('a')).toBe(1);
    expect(tx.changes.get('a')).toEqual({ oldValue: undefined, newValue: 1 });
    await put;
    w.release();
  });

  it('a put whose leaf is not at hand waits for it; while it waits, a put of a node now at hand waits its turn too', async () => {
    const keys = Array.from({ length: 50 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    const { dag, root } = await storedTree(keys);
    const w = await dag.write();
    const tree = writeBTree(w, root);
    const tx = transaction(tree);
    expect(tree.getNow('k10')).toBe(NOT_AT_HAND);
    const first = tx.put('k10', 'first');
    expect(tx.changes.has('k10')).toBe(false);
    // The node comes in (the first put asked for it) while the first put is still on its way.
    await w.getChunk(root);
    expect(tree.getNow('k12')).toBe('old k12');
    const second = tx.put('k12', 'second');
    expect(tx.changes.has('k12')).toBe(false);
    await Promise.all([first, second]);
    expect(tx.changes.get('k10')).toEqual({ oldValue: 'old k10', newValue: 'first' });
    expect(tx.changes.get('k12')).toEqual({ oldValue: 'old k12', newValue: 'second' });
    // Nothing waits now: the next put is at once.
    void tx.put('k13', 'third');
    expect(tx.changes.get('k13')).toEqual({ oldValue: 'old k13', newValue: 'third' });
    expect(await tx.get('k10')).toBe('first');
    w.release();
  });
  it('writes a mutator does not await land in call order, also when the first must wait for its node', async () => {
    const keys = Array.from({ length: 50 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    const { dag, root } = await storedTree(keys);
    const w = await dag.write();
    const tx = transaction(writeBTree(w, root));
    const writes = [tx.del('k10'), tx.put('k10', 'after del'), tx.put('k20', 'x'), tx.del('k20'), tx.put('k20', 'y'), tx.del('k30')];
    await Promise.all(writes);
    expect(await tx.get('k10')).toBe('after del');
    expect(await tx.get('k20')).toBe('y');
    expect(await tx.has('k30')).toBe(false);
    expect(tx.changes.get('k10')).toEqual({ oldValue: 'old k10', newValue: 'after del' });
    expect(tx.changes.get('k20')).toEqual({ oldValue: 'old k20', newValue: 'y' });
    expect(tx.changes.get('k30')).toEqual({ oldValue: 'old k30', newValue: undefined });
    w.release();
  });

  it('writes still waiting their turn when the transaction closes fail as closed, and touch nothing', async () => {
    const keys = Array.from({ length: 50 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    const { dag, root } = await storedTree(keys);
    const w = await dag.write();
    const tx = transaction(writeBTree(w, root));
    const first = tx.del('k10');
    const second = tx.put('k20', 'late');
    tx.close();
    await expect(first).rejects.toThrow('Transaction is closed');
    await expect(second).rejects.toThrow('Transaction is closed');
    expect(tx.changes.size).toBe(0);
    w.release();
  });
});
