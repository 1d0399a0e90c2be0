/**
 * Model-based tests: the B+tree against a sorted map under random sequences
 * of put/del/get/scan/diff/flush/reopen, with keys from every UTF-8 length
 * class and values big enough that a few hundred keys make several levels.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { BTREE_MAX_NODE_BYTES, BTREE_MIN_NODE_BYTES } from '../../protocol/constants';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { LazyDagStore } from '../dag/lazy-store';
import { PersistentDagStore } from '../dag/store';
import type { DagRead, DagStore, DagWrite, Hash } from '../dag/types';
import { openStore } from '../kv/idb-store';
import { MemoryStore } from '../kv/memory-store';
import { readBTree, writeBTree } from './btree';
import { nodeFromChunk, nodeSize, type InternalEntry } from './node';
import type { BTreeWriter, DiffOp, Entry } from './types';

const NAME = 'btree-model-test';
afterEach(() => MemoryStore.drop(NAME));

const utf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
const CHARS = ['a', 'b', 'z', 'é', 'ß', '中', '文', '\ue000', '\uffff', '😀', '𝄞', '~'];
/** Long keys make internal nodes fill up too, so a few hundred entries give three levels. */
const PAD = '.'.repeat(300);
const keyOf = (parts: readonly string[]) => parts.join('') + PAD;
const keyArb = fc.array(fc.constantFrom(...CHARS), { minLength: 1, maxLength: 3 }).map(keyOf);
const bulkKey = (i: number, salt: number) => `${CHARS[i % CHARS.length]}${CHARS[(i * 7 + salt) % CHARS.length]}${i}${PAD}`;
const valueArb = fc.constantFrom(0, 10, 1000, 3000).chain((size) =>
  fc.constantFrom<ReadonlyJSONValue>('x'.repeat(size), { s: 'y'.repeat(size), n: size, l: [1, true, null] }),
);

/** Mostly big values, so bulk loads split leaves and internal nodes. */
const bulkValueArb = fc.constantFrom<ReadonlyJSONValue>('x'.repeat(3000), { s: 'y'.repeat(2500), n: 1 }, 'x'.repeat(10));

type Op =
  | { t: 'put'; key: string; value: ReadonlyJSONValue }
  | { t: 'del'; key: string }
  | { t: 'get'; key: string }
  | { t: 'scan'; from: string | undefined; limit: number }
  | { t: 'bulk'; count: number; salt: number; value: ReadonlyJSONValue }
  | { t: 'delMany'; every: number }
  | { t: 'clear' }
  | { t: 'flush'; snapshot: boolean; reopen: boolean }
  | { t: 'diff' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 10, arbitrary: fc.record({ t: fc.constant('put' as const), key: keyArb, value: valueArb }) },
  { weight: 5, arbitrary: fc.record({ t: fc.constant('del' as const), key: keyArb }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('get' as const), key: keyArb }) },
  {
    weight: 3,
    arbitrary: fc.record({ t: fc.constant('scan' as const), from: fc.option(keyArb, { nil: undefined }), limit: fc.integer({ min: 1, max: 400 }) }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('bulk' as const), count: fc.integer({ min: 20, max: 400 }), salt: fc.nat(50), value: bulkValueArb }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('delMany' as const), every: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.constant({ t: 'clear' as const }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('flush' as const), snapshot: fc.boolean(), reopen: fc.boolean() }) },
  { weight: 3, arbitrary: fc.constant({ t: 'diff' as const }) },
);

/** Half of the sequences start from a three-level tree. */
const deepStart: Op[] = [
  { t: 'bulk', count: 400, salt: 0, value: 'x'.repeat(3000) },
  { t: 'flush', snapshot: true, reopen: false },
];
const opsArb = fc
  .tuple(fc.boolean(), fc.array(opArb, { minLength: 1, maxLength: 40, size: 'max' }))
  .map(([deep, ops]) => (deep ? [...deepStart, ...ops] : ops));

function sortedEntries(model: ReadonlyMap<string, ReadonlyJSONValue>): Entry[] {
  return [...model].sort((a, b) => utf8Order(a[0], b[0]));
}

function modelDiff(from: ReadonlyMap<string, ReadonlyJSONValue>, to: ReadonlyMap<string, ReadonlyJSONValue>): DiffOp[] {
  const keys = [...new Set([...from.keys(), ...to.keys()])].sort(utf8Order);
  const out: DiffOp[] = [];
  for (const key of keys) {
    const a = from.get(key);
    const b = to.get(key);
    if (a === undefined) out.push({ op: 'add', key, newValue: b! });
    else if (b === undefined) out.push({ op: 'del', key, oldValue: a });
    else if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ op: 'change', key, oldValue: a, newValue: b });
  }
  return out;
}

/** Checks the shape of a flushed tree: sorted keys, right max keys, one leaf depth, node sizes. Returns its height. */
async function checkTree(dag: DagRead, root: Hash): Promise<number> {
  const leafDepths = new Set<number>();
  const visit = async (hash: Hash, depth: number, isRoot: boolean): Promise<string | undefined> => {
    const node = nodeFromChunk(await dag.mustGetChunk(hash));
    const keys = node.entries.map((e) => e[0]);
    for (let i = 1; i < keys.length; i++) expect(utf8Order(keys[i - 1]!, keys[i]!)).toBeLessThan(0);
    if (node.entries.length > 1) expect(nodeSize(node)).toBeLessThanOrEqual(BTREE_MAX_NODE_BYTES);
    if (!isRoot) {
      expect(node.entries.length).toBeGreaterThan(0);
      // Under the minimum by less than one entry at most (entries here are under 3.5 KB).
      expect(nodeSize(node)).toBeGreaterThan(BTREE_MIN_NODE_BYTES - 3500);
    }
    if (node.level === 0) {
      leafDepths.add(depth);
      return keys[keys.length - 1];
    }
    if (isRoot) expect(node.entries.length).toBeGreaterThan(1);
    for (const [maxKey, child] of node.entries as readonly InternalEntry[]) {
      expect(await visit(child as Hash, depth + 1, false)).toBe(maxKey);
    }
    return keys[keys.length - 1];
  };
  await visit(root, 1, true);
  expect(leafDepths.size).toBeLessThanOrEqual(1);
  return [...leafDepths][0] ?? 1;
}

async function run(makeStore: () => DagStore | Promise<DagStore>, persist: (s: DagStore) => Promise<void>, ops: readonly Op[], stats: { maxHeight: number }) {
  let store = await makeStore();
  let w: DagWrite = await store.write();
  let tree: BTreeWriter = writeBTree(w, undefined);
  const model = new Map<string, ReadonlyJSONValue>();
  let snapshot: { root: Hash; model: Map<string, ReadonlyJSONValue> } | undefined;

  for (const op of ops) {
    switch (op.t) {
      case 'put':
        await tree.put(op.key, op.value);
        model.set(op.key, op.value);
        break;
      case 'del':
        expect(await tree.del(op.key)).toBe(model.has(op.key));
        model.delete(op.key);
        break;
      case 'get':
        expect(await tree.get(op.key)).toEqual(model.get(op.key));
        expect(await tree.has(op.key)).toBe(model.has(op.key));
        break;
      case 'scan': {
        const want = sortedEntries(model).filter(([k]) => op.from === undefined || utf8Order(k, op.from) >= 0).slice(0, op.limit);
        const got: Entry[] = [];
        for await (const e of tree.scan(op.from)) {
          if (got.length >= op.limit) break;
          got.push(e);
        }
        expect(got.map((e) => e[0])).toEqual(want.map((e) => e[0]));
        expect(got).toEqual(want);
        expect(await tree.isEmpty()).toBe(model.size === 0);
        break;
      }
      case 'bulk':
        for (let i = 0; i < op.count; i++) {
          const key = bulkKey(i, op.salt);
          await tree.put(key, op.value);
          model.set(key, op.value);
        }
        break;
      case 'delMany': {
        let i = 0;
        for (const key of sortedEntries(model).map((e) => e[0])) {
          if (i++ % op.every !== 0) continue;
          expect(await tree.del(key)).toBe(true);
          model.delete(key);
        }
        break;
      }
      case 'clear':
        await tree.clear();
        model.clear();
        break;
      case 'flush': {
        const root = await tree.flush();
        await w.setHead('main', root);
        if (op.snapshot) {
          await w.setHead('snapshot', root);
          snapshot = { root, model: new Map(model) };
        }
        await w.commit();
        await persist(store);
        const r = await store.read();
        stats.maxHeight = Math.max(stats.maxHeight, await checkTree(r, root));
        r.release();
        if (op.reopen) store = await makeStore();
        w = await store.write();
        expect(await w.getHead('main')).toBe(root);
        tree = writeBTree(w, root);
        break;
      }
      case 'diff': {
        if (snapshot === undefined) break;
        const old = readBTree(w, snapshot.root);
        expect(await old.diff(tree)).toEqual(modelDiff(snapshot.model, model));
        expect(await tree.diff(old)).toEqual(modelDiff(model, snapshot.model));
        break;
      }
    }
  }
  // Everything is still there after a last flush and a fresh open.
  const root = await tree.flush();
  await w.setHead('main', root);
  await w.commit();
  await persist(store);
  const r = await (await makeStore()).read();
  const got: Entry[] = [];
  for await (const e of readBTree(r, root).scan()) got.push(e);
  expect(got).toEqual(sortedEntries(model));
  r.release();
}

let idb = new IDBFactory();

const variants: [string, () => DagStore | Promise<DagStore>, (s: DagStore) => Promise<void>, number][] = [
  ['persistent dag', () => new PersistentDagStore(new MemoryStore(NAME)), async () => {}, 25],
  [
    'lazy dag with a small cache',
    () => new LazyDagStore(new PersistentDagStore(new MemoryStore(NAME)), { cacheBytes: 64 * 1024 }),
    (s) => (s as LazyDagStore).persist(),
    25,
  ],
  [
    'lazy dag over fake IndexedDB',
    async () => new LazyDagStore(new PersistentDagStore(await openStore(NAME, { idbFactory: idb })), { cacheBytes: 64 * 1024 }),
    (s) => (s as LazyDagStore).persist(),
    12,
  ],
];

describe.each(variants)('B+tree against a sorted-map model (%s)', (_, makeStore, persist, runs) => {
  it('matches the model under random operation sequences', async () => {
    const stats = { maxHeight: 0 };
    await fc.assert(
      fc.asyncProperty(opsArb, async (ops) => {
        MemoryStore.drop(NAME);
        idb = new IDBFactory();
        await run(makeStore, persist, ops, stats);
      }),
      { numRuns: Number(process.env.BTREE_MODEL_RUNS ?? runs) },
    );
    // The runs did reach several levels.
    expect(stats.maxHeight).toBeGreaterThanOrEqual(3);
  });
});
