/**
 * The chain record of a client group: a long chain (an offline backlog) is
 * stored in parts, so a store that appends a commit rewrites the record's
 * tail, not every hash of the chain; it reads back whole, and a reader that
 * finds a part missing or wrong gets no chain (it then walks the commits).
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { PersistentDagStore, type PersistentDagWrite } from '../dag/store';
import type { Hash } from '../dag/types';
import { IDBKvProvider } from '../kv/idb-provider';
import { MemoryKvProvider } from '../kv/memory-provider';
import { countJoinRounds } from './chain-hint.testing';
import { CHAIN_PART_COMMITS, deleteGroupChain, readChainPartEnds, readGroupChain, writeGroupChain, type GroupChain } from './group-chain';
import { Tabs } from './testing/tabs';

const S = CHAIN_PART_COMMITS;
const DATA = 'chain-data';
let stores = 0;

async function newStore(): Promise<PersistentDagStore> {
  return new PersistentDagStore(await new MemoryKvProvider(`group-chain-${++stores}`).open('data'));
}

/** A chain of `n` commits: `prefix`-0 (the snapshot) to `prefix`-(n-1) (the head). */
function chainOf(n: number, prefix = 'c'): GroupChain {
  const commits = Array.from({ length: n }, (_, i) => `${prefix}-${i}` as Hash);
  return { head: commits.at(-1)!, commits, root: `${prefix}-root` as Hash };
}

/** Writes `chain` as the group's chain (over the record there) and returns the records it put and deleted. */
async function store(dag: PersistentDagStore, chain: GroupChain, group = 'g'): Promise<{ puts: Map<string, ReadonlyJSONValue>; deletes: string[] }> {
  const puts = new Map<string, ReadonlyJSONValue>();
  const deletes: string[] = [];
  await dag.withWrite(async (w) => {
    const counted: PersistentDagWrite = Object.assign(Object.create(w) as PersistentDagWrite, {
      putMeta: (name: string, value: ReadonlyJSONValue) => (puts.set(name, value), w.putMeta(name, value)),
      delMeta: (name: string) => (deletes.push(name), w.delMeta(name)),
    });
    await writeGroupChain(counted, group, chain, await readChainPartEnds(w, group));
    await w.commit();
  });
  return { puts, deletes };
}

const read = (dag: PersistentDagStore, group = 'g') => dag.withRead((r) => readGroupChain(r, group));
const hashesIn = (puts: Map<string, ReadonlyJSONValue>) => JSON.stringify([...puts.values()]).split('"c-').length - 1;

describe('group chain record', () => {
  it.each([1, S, S + 1, 2 * S, 3 * S + 5])('a chain of %i commits reads back as it was written', async (n) => {
    const dag = await newStore();
    const chain = { ...chainOf(n), top: ['t-1', 't-2'] as Hash[] };
    await store(dag, chain);
    expect(await read(dag)).toEqual(chain);
  });

  it(`a chain of up to ${S} commits is one record that lists them all, as before parts existed`, async () => {
    const dag = await newStore();
    const { puts } = await store(dag, chainOf(S));
    expect([...puts.keys()]).toEqual(['chain/g']);
    expect(puts.get('chain/g')).toEqual({ head: `c-${S - 1}`, root: 'c-root', commits: chainOf(S).commits });
  });

  it('a store that adds a commit to a 10,000-commit chain rewrites the record of the last commits only, not a part', async () => {
    const dag = await newStore();
    const first = await store(dag, chainOf(10_000));
    // Every commit once, one end per part, and the head and root fields.
    expect(hashesIn(first.puts)).toBe(10_000 + Math.floor(9_999 / S) + 2);
    const { puts, deletes } = await store(dag, chainOf(10_001));
    expect([...puts.keys()]).toEqual(['chain/g']);
    expect(deletes).toEqual([]);
    // The tail (fewer than 2 parts' worth) and one end per part: not the 10,001 hashes the whole list would be.
    expect(hashesIn(puts)).toBeLessThan(2 * S + 10_001 / S);
    expect(await read(dag)).toEqual(chainOf(10_001));
  });

  it('the parts from the first changed commit on are rewritten (a rebase); those before it are kept', async () => {
    const dag = await newStore();
    await store(dag, chainOf(5 * S));
    // The same first 2 parts and a half, then other commits (rebased).
    const kept = chainOf(5 * S).commits.slice(0, 2 * S + S / 2);
    const commits = [...kept, ...Array.from({ length: 2 * S }, (_, i) => `r-${i}` as Hash)];
    const chain = { head: commits.at(-1)!, commits, root: 'r-root' as Hash };
    const { puts } = await store(dag, chain);
    expect([...puts.keys()].sort()).toEqual(['chain/g', 'chain/g/2', 'chain/g/3']);
    expect(await read(dag)).toEqual(chain);
  });

  it('a chain that became short, or has fewer parts, deletes the parts it no longer has', async () => {
    const dag = await newStore();
    await store(dag, chainOf(4 * S + 1));
    const fewer = await store(dag, chainOf(2 * S + 1, 'n'));
    expect(fewer.deletes.sort()).toEqual(['chain/g/2', 'chain/g/3']);
    expect(await read(dag)).toEqual(chainOf(2 * S + 1, 'n'));
    const short = await store(dag, chainOf(3, 's'));
    expect(short.deletes.sort()).toEqual(['chain/g/0', 'chain/g/1']);
    expect(await read(dag)).toEqual(chainOf(3, 's'));
    expect(await dag.withRead((r) => r.getMeta('chain/g/0'))).toBeUndefined();
  });

  it('a record in parts has no commit list: a reader of the single-record form (an older tab) finds no chain in it and walks the commits', async () => {
    const dag = await newStore();
    await store(dag, chainOf(2 * S + 3));
    const record = (await dag.withRead((r) => r.getMeta('chain/g'))) as Record<string, unknown>;
    expect(record.commits).toBeUndefined();
    expect(record.parts).toEqual([`c-${S - 1}`, `c-${2 * S - 1}`]);
    expect(record.tail).toEqual(['c-512', 'c-513', 'c-514']);
  });

  it('a part that is missing, of another length or ending elsewhere than the record says makes no chain', async () => {
    for (const spoil of [(w: PersistentDagWrite) => w.delMeta('chain/g/1'), (w: PersistentDagWrite) => w.putMeta('chain/g/1', ['c-1']), (w: PersistentDagWrite) => w.putMeta('chain/g/0', chainOf(S, 'x').commits)]) {
      const dag = await newStore();
      await store(dag, chainOf(3 * S));
      await dag.withWrite(async (w) => {
        await spoil(w);
        await w.commit();
      });
      expect(await read(dag)).toBeUndefined();
    }
  });

  it("deleting the group's chain deletes every part, also parts past the ones its record names", async () => {
    const dag = await newStore();
    await store(dag, chainOf(4 * S));
    // An older tab replaced the record with its own single-record form: the parts are still there.
    await dag.withWrite(async (w) => {
      await w.putMeta('chain/g', { head: 'c-1', root: 'c-root', commits: ['c-0', 'c-1'] });
      await w.commit();
    });
    await store(dag, chainOf(2 * S + 1));
    await dag.withWrite(async (w) => {
      await deleteGroupChain(w, 'g');
      await w.commit();
    });
    const left = await dag.withRead((r) => Promise.all(['chain/g', 'chain/g/0', 'chain/g/1', 'chain/g/2'].map((k) => r.getMeta(k))));
    expect(left).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('a tab opened on a store (fake IndexedDB) whose group head has a chain in parts reads it with the records and every commit in the next round, and has every pending mutation', async () => {
    const tabs = new Tabs({ frozen: true, provider: new IDBKvProvider(new IDBFactory()), dataName: DATA, logName: `${DATA}:log` });
    const a = await tabs.open();
    const n = 2 * S + 10;
    for (let i = 0; i < n; i++) await a.client.store.mutate('put', { key: `k${i}`, value: i });
    await a.client.sync();
    const group = a.client.clientGroupID;
    const dag = new PersistentDagStore(await tabs.dataKv());
    const [record, chain] = await dag.withRead((r) => Promise.all([r.getMeta(`chain/${group}`), readGroupChain(r, group)]));
    expect((record as { parts?: unknown }).parts).toHaveLength(2);
    expect(chain!.commits).toHaveLength(n + 1);
    const counted = countJoinRounds(DATA);
    const b = await tabs.open();
    // The records (and the chain's parts with them), then the head's commits at once. Without the
    // chain the join reads the head alone and the commits below it are read one by one after it
    // (1,042 reads after the join for this store).
    expect(counted.rounds()).toBeLessThanOrEqual(2);
    expect(counted.readsAfter()).toBeLessThan(n);
    vi.restoreAllMocks();
    expect(b.client.clientGroupID).toBe(group);
    expect(b.client.store.pendingMutations()).toHaveLength(n);
    expect(await b.client.store.query((tx) => tx.get(`k${n - 1}`))).toBe(n - 1);
    await tabs.closeAll();
  });
});
