import { afterEach, describe, expect, it } from 'vitest';
import { readBTree, writeBTree } from '../btree/btree';
import { compareUTF8 } from '../btree/compare';
import { NODE_HINT, nodeFromChunk } from '../btree/node';
import { LazyDagStore } from '../dag/lazy-store';
import { PersistentDagStore } from '../dag/store';
import type { DagRead, Hash } from '../dag/types';
import { MemoryStore } from '../kv/memory-store';
import { encodeIndexKey, encodeIndexPrefix } from './index-key';
import { MapReaders } from './map-access';
import { ReadRecord, type ScanRecord } from './read-record';
import { ReadTransactionImpl } from './read-transaction';
import { normalizeScan, type NormalizedScan } from './scan-options';
import { entriesAtHand, ScanIterator, type ScanOwner } from './scan-result';
import type { ScanIndexOptions, ScanOptions } from './transaction-types';
import type { Entry } from '../btree/types';

const NAME = 'scan-result-test';
afterEach(() => MemoryStore.drop(NAME));

/** Long keys (long internal entries: few children per node) under a few prefixes, enough for a tree of three levels. */
const key = (p: string, i: number) => `${p}${String(i).padStart(5, '0')}-${'k'.repeat(150)}`;
const KEYS: string[] = [];
for (const p of ['a/', 'b/', 'ba/', 'c/']) for (let i = 0; i < 4000; i++) KEYS.push(key(p, i));
KEYS.sort(compareUTF8);
const valueOf = (k: string) => ({ owner: `o${Number(k.slice(-156, -151)) % 3}`, pad: 'x'.repeat(100) });
/** The index entries: [owner, key] encoded. */
const INDEX_KEYS = KEYS.map((k) => encodeIndexKey(valueOf(k).owner, k)).sort(compareUTF8);

async function build(): Promise<{ dag: LazyDagStore; roots: { primary: Hash; index: Hash } }> {
  const dag = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
  const roots = await dag.withWrite(async (w) => {
    const primary = writeBTree(w, undefined);
    const index = writeBTree(w, undefined);
    for (const k of KEYS) {
      await primary.put(k, valueOf(k));
      await index.put(encodeIndexKey(valueOf(k).owner, k), valueOf(k));
    }
    const roots = { primary: await primary.flush(), index: await index.flush() };
    await w.setHead('primary', roots.primary);
    await w.setHead('index', roots.index);
    await w.commit();
    return roots;
  });
  return { dag, roots };
}

function transaction(dag: DagRead, roots: { primary: Hash; index: Hash }, readOnly: boolean, record: ReadRecord) {
  const maps = new MapReaders(readBTree(dag, roots.primary), new Map([['byOwner', roots.index]]), (root) => readBTree(dag, root));
  return new ReadTransactionImpl('c1', 'initial', maps, compareUTF8, record, readOnly);
}

/** What a scan of sorted map keys returns, by the definition of prefix, start, exclusive and limit. */
function model(keys: readonly string[], prefix: string, start: string | undefined, exclusive: boolean, limit: number): string[] {
  const out: string[] = [];
  for (const k of keys) {
    if (!k.startsWith(prefix)) continue;
    if (start !== undefined && (compareUTF8(k, start) < 0 || (exclusive && k === start))) continue;
    if (out.length < limit) out.push(k);
  }
  return out;
}

const PRIMARY_SCANS: { prefix?: string; start?: string; exclusive?: boolean; limit?: number }[] = [
  {},
  { prefix: 'b/' },
  { prefix: 'b' },
  { prefix: 'ba/', limit: 10 },
  { prefix: 'zz' },
  { prefix: 'a/', limit: 0 },
  { start: key('b/', 1234) },
  { start: key('b/', 1234), exclusive: true, limit: 3000 },
  { prefix: 'b/', start: key('b/', 3998), exclusive: true },
  { prefix: 'b/', start: 'c/' },
  { prefix: 'a/', start: 'a/' },
  { start: 'bz' },
  { limit: 16000 },
];

const INDEX_SCANS: ScanOptions[] = [
  { indexName: 'byOwner' },
  { indexName: 'byOwner', prefix: 'o1' },
  { indexName: 'byOwner', prefix: 'o2', limit: 7 },
  { indexName: 'byOwner', start: { key: ['o1', key('b/', 100)], exclusive: true }, limit: 4000 },
  { indexName: 'byOwner', start: { key: 'o1', exclusive: true } },
];

const recordOf = (r: ScanRecord | undefined) => r && { prefix: r.prefix, fromKey: r.fromKey, lastKey: r.lastKey, exhausted: r.exhausted };
const newRecord = (scan: NormalizedScan) => new ReadRecord().addScan(scan.indexName, scan.prefix, scan.fromKey);
const open: ScanOwner = { checkOpen() {} };

const allOptions: ScanOptions[] = [
  ...PRIMARY_SCANS.map(({ prefix, start, exclusive, limit }) => ({
    ...(prefix === undefined ? {} : { prefix }),
    ...(start === undefined ? {} : { start: { key: start, exclusive: exclusive ?? false } }),
    ...(limit === undefined ? {} : { limit }),
  })),
  ...INDEX_SCANS,
];

async function iterate(it: AsyncIterator<Entry>): Promise<Entry[]> {
  const out: Entry[] = [];
  for (let r = await it.next(); r.done !== true; r = await it.next()) out.push(r.value);
  return out;
}

describe('a scan read at once from nodes at hand', () => {
  it('returns and records what the scan iterated entry by entry returns, on a tree of three levels', async () => {
    const { dag, roots } = await build();
    const read = await dag.read();
    try {
      const root = nodeFromChunk(await read.mustGetChunk(roots.primary, NODE_HINT));
      expect(root.level).toBeGreaterThanOrEqual(2);
      for (const options of allOptions) {
        const scan = normalizeScan(options, compareUTF8);
        const tree = readBTree(read, scan.indexName === undefined ? roots.primary : roots.index);
        const [atOnce, iterated] = [newRecord(scan), newRecord(scan)];
        const entries = entriesAtHand(tree, scan, atOnce, open);
        expect(entries).toBeDefined();
        expect(entries).toEqual(await iterate(new ScanIterator(scan, tree, open, iterated)));
        expect(recordOf(atOnce)).toEqual(recordOf(iterated));
        for (const [, v] of entries!) expect(Object.isFrozen(v)).toBe(true);
        // Through read transactions: one that may take the walk and one that iterates.
        const results = [];
        for (const readOnly of [true, false]) {
          const tx = transaction(read, roots, readOnly, new ReadRecord());
          const s = () => tx.scan(options as ScanIndexOptions);
          results.push([await s().entries().toArray(), await s().keys().toArray(), await s().toArray(), tx.record!.scans.map(recordOf)]);
        }
        expect(results[0]).toEqual(results[1]);
      }
      for (const { prefix = '', start, exclusive = false, limit = Infinity } of PRIMARY_SCANS) {
        const options = { prefix, ...(start === undefined ? {} : { start: { key: start, exclusive } }), limit };
        const keys = await transaction(read, roots, true, new ReadRecord()).scan(options).keys().toArray();
        expect(keys).toEqual(model(KEYS, prefix, start, exclusive, limit));
      }
      const ownerKeys = await transaction(read, roots, true, new ReadRecord()).scan({ indexName: 'byOwner', prefix: 'o1' }).keys().toArray();
      expect(ownerKeys.map(([s, p]) => encodeIndexKey(s, p))).toEqual(model(INDEX_KEYS, encodeIndexPrefix('o1'), undefined, false, Infinity));
    } finally {
      read.release();
    }
  });

  it('is not taken while a node is not at hand (a tree read back from storage): the scan iterates, with the same result', async () => {
    const { dag, roots } = await build();
    await dag.persist();
    await dag.close();
    const cold = new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)));
    const read = await cold.read();
    try {
      const options = { prefix: 'b/', start: { key: key('b/', 10), exclusive: true }, limit: 5 };
      const scan = normalizeScan(options, compareUTF8);
      const record = newRecord(scan);
      expect(entriesAtHand(readBTree(read, roots.primary), scan, record, open)).toBeUndefined();
      expect(recordOf(record)).toEqual({ prefix: 'b/', fromKey: key('b/', 10), lastKey: undefined, exhausted: false });
      const tx = transaction(read, roots, true, new ReadRecord());
      expect(await tx.scan(options).keys().toArray()).toEqual([11, 12, 13, 14, 15].map((i) => key('b/', i)));
      expect(tx.record!.scans.map(recordOf)).toEqual([{ prefix: 'b/', fromKey: key('b/', 10), lastKey: key('b/', 15), exhausted: false }]);
      // Once iterated, the nodes are at hand.
      expect(entriesAtHand(readBTree(read, roots.primary), scan, undefined, open)).toHaveLength(5);
    } finally {
      read.release();
      await cold.close();
    }
  });

  it('a closed transaction refuses the walk as it refuses iteration', async () => {
    const { dag, roots } = await build();
    const read = await dag.read();
    try {
      const tx = transaction(read, roots, true, new ReadRecord());
      const scan = tx.scan({ prefix: 'a/' });
      tx.close();
      await expect(scan.toArray()).rejects.toThrow('Transaction is closed');
    } finally {
      read.release();
    }
  });
});
