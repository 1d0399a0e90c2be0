import { describe, expect, it } from 'vitest';
import { readBTree, writeBTree } from '../btree/btree';
import { compareUTF8 } from '../btree/compare';
import { LazyDagStore } from '../dag/lazy-store';
import { PersistentDagStore } from '../dag/store';
import type { DagWrite } from '../dag/types';
import { MemoryStore } from '../kv/memory-store';
import { newCommitChunk, type Commit, type LocalCommitData, type SnapshotCommitData } from './commit';
import type { DbContext } from './db-context';
import { applyMergePlan, type Chain } from './merge-chains';
import { runMutation } from './mutation-runner';
import { RecordingLogger, basicMutators } from './test-helpers';

const ctx: DbContext = {
  compare: compareUTF8,
  indexes: [],
  logger: new RecordingLogger(),
  onIndexSkip: () => {},
  readTree: readBTree,
  writeTree: writeBTree,
};

async function put(dag: DagWrite, basis: Commit, clientID: string, id: number, key: string): Promise<Commit<LocalCommitData>> {
  const input = { name: 'put', args: { key, value: id }, clientID, mutationID: id, timestamp: id, originalHash: null };
  return (await runMutation(dag, basis, input, basicMutators.put as never, 'initial', ctx)).commit;
}

describe('applyMergePlan', () => {
  it('replays a kept commit whose trees were not stored with it, instead of building on trees that are not there', async () => {
    const dag = new LazyDagStore(new PersistentDagStore(new MemoryStore(`merge-${Math.random()}`)));
    const keys = await dag.withWrite(async (w) => {
      const data: SnapshotCommitData = { type: 'snapshot', basisHash: null, cookie: 1, lastMutationIDs: {}, valueHash: await writeBTree(w, undefined).flush(), indexes: [] };
      const chunk = newCommitChunk(w, data);
      await w.putChunk(chunk);
      const snapshot = { hash: chunk.hash, data } as Commit<SnapshotCommitData>;
      const a1 = await put(w, snapshot, 'a', 1, 'a1');
      // As a chain is stored below its head: the commit's data names trees the store does not have.
      const thinData = { ...a1.data, valueHash: 'not-stored' };
      const thinChunk = w.createChunk(thinData as never, [snapshot.hash]);
      await w.putChunk(thinChunk);
      const thin = { hash: thinChunk.hash, data: thinData } as Commit<LocalCommitData>;
      const a2 = await put(w, a1, 'a', 2, 'a2');
      const b1 = await put(w, snapshot, 'b', 1, 'b1');
      const ours: Chain = { head: a2, snapshot, locals: [thin, a2] };
      const theirs: Chain = { head: b1, snapshot, locals: [b1] };
      const head = await applyMergePlan(w, { base: 'ours', keep: 1, replay: [a2, b1] }, ours, theirs, (name) => basicMutators[name as 'put'] as never, ctx);
      const out: string[] = [];
      for await (const [key] of readBTree(w, head.data.valueHash).scan()) out.push(key);
      return out;
    });
    expect(keys).toEqual(['a1', 'a2', 'b1']);
  });
});
