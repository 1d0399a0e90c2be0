import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../kv/memory-store';
import { readBTree, writeBTree } from '../btree/btree';
import { compareUTF8 } from '../btree/compare';
import { LazyDagStore } from '../dag/lazy-store';
import { PersistentDagStore } from '../dag/store';
import { Database } from './database';
import { basicMutators, RecordingLogger } from './test-helpers';

async function openDb(dag: LazyDagStore, headName: string, clientID: string) {
  return Database.open({
    dag,
    clientID,
    mutators: basicMutators,
    clock: () => 0,
    logger: new RecordingLogger(),
    compare: compareUTF8,
    readTree: readBTree,
    writeTree: writeBTree,
    headName,
  });
}

describe('Database.replaceHead', () => {
  it('adopts another head: data, pending mutations, next id, subscriptions and watchers', async () => {
    const dag = new LazyDagStore(new PersistentDagStore(new MemoryStore('replace-head')));
    const a = await openDb(dag, 'tab-a', 'ca');
    const b = await openDb(dag, 'tab-b', 'cb');
    await a.mutate('put', { key: 'x', value: 1 });
    await a.mutate('put', { key: 'y', value: 2 });
    const seen: unknown[] = [];
    b.subscribe((tx) => tx.get('x'), { onData: (d) => seen.push(d) });
    const diffs: unknown[] = [];
    b.experimentalWatch((d) => diffs.push(d));
    await b.replaceHead(a.headCommit.hash);
    expect(await b.query((tx) => tx.scan().entries().toArray())).toEqual([
      ['x', 1],
      ['y', 2],
    ]);
    expect(b.pendingMutations().map((m) => [m.clientID, m.id])).toEqual([
      ['ca', 1],
      ['ca', 2],
    ]);
    expect(seen).toEqual([undefined, 1]);
    expect(diffs).toEqual([
      [
        { op: 'add', key: 'x', newValue: 1 },
        { op: 'add', key: 'y', newValue: 2 },
      ],
    ]);
    await a.mutate('put', { key: 'z', value: 3 });
    await a.replaceHead(b.headCommit.hash);
    expect(a.nextMutationID).toBe(4);
  });
});
