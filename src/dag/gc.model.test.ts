/**
 * Ref counting and GC against a model: after every commit, a chunk is stored
 * exactly when it is reachable from a head, and its stored count is the number
 * of heads and stored chunks that refer to it. Same for the lazy store's
 * memory layer and, after each persist, for what it persisted.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../kv/memory-store';
import { chunkRefCountKey } from './key-layout';
import { LazyDagStore } from './lazy-store';
import { PersistentDagStore } from './store';
import type { DagStore, Hash } from './types';

const NAME = 'gc-model-test';
afterEach(() => MemoryStore.drop(NAME));

const HEADS = ['a', 'b', 'c'];

type Op =
  | { t: 'create'; head: number; picks: number[]; orphan: boolean }
  | { t: 'move'; head: number; from: number }
  | { t: 'remove'; head: number }
  | { t: 'persist'; reopen: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('create' as const),
      head: fc.nat(2),
      picks: fc.array(fc.nat(1000), { maxLength: 4 }),
      orphan: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('move' as const), head: fc.nat(2), from: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('remove' as const), head: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('persist' as const), reopen: fc.boolean() }) },
);

interface Model {
  heads: Map<string, Hash>;
  refs: Map<Hash, readonly Hash[]>;
}

function reachable(model: Model, heads: Iterable<Hash>): Set<Hash> {
  const seen = new Set<Hash>();
  const visit = (h: Hash) => {
    if (seen.has(h)) return;
    seen.add(h);
    for (const r of model.refs.get(h)!) visit(r);
  };
  for (const h of heads) visit(h);
  return seen;
}

/** Checks the persistent store holds exactly what `heads` reach, with exact counts. */
async function checkPersistent(kv: MemoryStore, model: Model, heads: Map<string, Hash>) {
  const live = reachable(model, heads.values());
  const expected = new Map<Hash, number>();
  for (const h of heads.values()) expected.set(h, (expected.get(h) ?? 0) + 1);
  for (const h of live) for (const r of model.refs.get(h)!) expected.set(r, (expected.get(r) ?? 0) + 1);
  const dag = new PersistentDagStore(kv);
  const r = await kv.read();
  await dag.withRead(async (read) => {
    for (const name of HEADS) expect(await read.getHead(name)).toBe(heads.get(name));
    for (const h of model.refs.keys()) {
      expect(await read.hasChunk(h)).toBe(live.has(h));
      expect((await r.get(chunkRefCountKey(h))) ?? 0).toBe(expected.get(h) ?? 0);
    }
  });
  r.release();
}

async function run(ops: readonly Op[], lazyMode: boolean) {
  const kv = new MemoryStore(NAME);
  const open = (): DagStore => (lazyMode ? new LazyDagStore(new PersistentDagStore(kv)) : new PersistentDagStore(kv));
  let store = open();
  const model: Model = { heads: new Map(), refs: new Map() };
  let persisted = new Map<string, Hash>();

  for (const op of ops) {
    const live = [...reachable(model, model.heads.values())];
    if (op.t === 'persist') {
      if (!lazyMode) continue;
      await (store as LazyDagStore).persist();
      persisted = new Map(model.heads);
      await checkPersistent(kv, model, persisted);
      expect((store as LazyDagStore).memoryOnlyChunkCount).toBe(0);
      if (op.reopen) store = open();
      continue;
    }
    await store.withWrite(async (w) => {
      const name = HEADS[op.head]!;
      if (op.t === 'create') {
        const refs = live.length === 0 ? [] : [...new Set(op.picks.map((p) => live[p % live.length]!))];
        const chunk = w.createChunk({ n: model.refs.size }, refs);
        await w.putChunk(chunk);
        model.refs.set(chunk.hash, refs);
        if (op.orphan) {
          const orphan = w.createChunk('orphan', [chunk.hash]);
          await w.putChunk(orphan);
          model.refs.set(orphan.hash, [chunk.hash]);
        }
        await w.setHead(name, chunk.hash);
        model.heads.set(name, chunk.hash);
      } else if (op.t === 'move') {
        const target = model.heads.get(HEADS[op.from]!);
        if (target === undefined) return;
        await w.setHead(name, target);
        model.heads.set(name, target);
      } else {
        await w.removeHead(name);
        model.heads.delete(name);
      }
      await w.commit();
    });

    if (!lazyMode) {
      await checkPersistent(kv, model, model.heads);
    } else {
      const liveNow = reachable(model, model.heads.values());
      const persistedLive = reachable(model, persisted.values());
      await store.withRead(async (r) => {
        for (const name of HEADS) expect(await r.getHead(name)).toBe(model.heads.get(name));
        for (const h of liveNow) expect(await r.hasChunk(h)).toBe(true);
      });
      // Memory holds exactly the live chunks not persisted yet.
      const memoryOnly = [...liveNow].filter((h) => !persistedLive.has(h)).length;
      expect((store as LazyDagStore).memoryOnlyChunkCount).toBe(memoryOnly);
    }
  }
}

describe('ref counting and GC against a model', () => {
  it('persistent dag: stored chunks are exactly the reachable ones, with exact counts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), async (ops) => {
        MemoryStore.drop(NAME);
        await run(ops, false);
      }),
      { numRuns: 60 },
    );
  });

  it('lazy dag: memory holds the unpersisted reachable chunks; persist leaves the disk exact', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), async (ops) => {
        MemoryStore.drop(NAME);
        await run(ops, true);
      }),
      { numRuns: 60 },
    );
  });
});
