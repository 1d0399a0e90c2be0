/**
 * Only the head's trees are kept: pending mutations cost a commit each in
 * memory, not a tree version each, and what reads older commits' trees
 * (another view at one of them, a rebase) still works.
 */
import { describe, expect, it } from 'vitest';
import { readBTree, writeBTree } from '../btree/btree';
import { compareUTF8 } from '../btree/compare';
import { LazyDagStore } from '../dag/lazy-store';
import { PersistentDagStore } from '../dag/store';
import { MemoryStore } from '../kv/memory-store';
import { applyServerUpdate } from '../sync/apply-server-update';
import { Database } from './database';
import { basicMutators, RecordingLogger } from './test-helpers';

function openDb(dag: LazyDagStore, headName: string) {
  return Database.open({ dag, clientID: 'c1', mutators: basicMutators, clock: () => 0, logger: new RecordingLogger(), compare: compareUTF8, readTree: readBTree, writeTree: writeBTree, headName });
}

describe('trees of pending commits', () => {
  it('a commit below the head lets go of its trees in memory: 100 pending mutations keep about a commit each', async () => {
    const dag = new LazyDagStore(new PersistentDagStore(new MemoryStore(`pending-trees-${Math.random()}`)));
    const db = await openDb(dag, 'main');
    const MUTATIONS = 100;
    for (let i = 0; i < MUTATIONS; i++) await db.mutate('put', { key: `k${String(i).padStart(3, '0')}`, value: 'x'.repeat(500) });
    // The commits, the head's tree (a few nodes) and the genesis snapshot's.
    expect(dag.memoryOnlyChunkCount).toBeLessThanOrEqual(MUTATIONS + 15);
    await applyServerUpdate(db, { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'server', value: 1 }] });
    expect(dag.memoryOnlyChunkCount).toBeLessThanOrEqual(MUTATIONS + 15);
    expect(await db.query((tx) => tx.get('k099'))).toBe('x'.repeat(500));
    expect(await db.query((tx) => tx.get('server'))).toBe(1);
    expect(db.pendingMutationCount).toBe(MUTATIONS);
  });

  it('a commit another head points at keeps its trees', async () => {
    const dag = new LazyDagStore(new PersistentDagStore(new MemoryStore(`pending-trees-${Math.random()}`)));
    const a = await openDb(dag, 'a');
    const b = await openDb(dag, 'b');
    await a.mutate('put', { key: 'x', value: 1 });
    await b.replaceHead(a.headCommit.hash);
    await a.mutate('put', { key: 'y', value: 2 });
    expect(await b.query((tx) => tx.scan().keys().toArray())).toEqual(['x']);
  });
});
