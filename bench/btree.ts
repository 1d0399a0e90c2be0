/**
 * Micro-benchmarks of the store engine below db/: B+tree over the lazy dag
 * over the persistent dag over a MemoryStore. Prints figures; asserts nothing.
 *   npx tsx bench/btree.ts
 */
import { readBTree, writeBTree } from '../src/btree/btree';
import { LazyDagStore } from '../src/dag/lazy-store';
import { PersistentDagStore } from '../src/dag/store';
import type { Hash } from '../src/dag/types';
import { MemoryStore } from '../src/kv/memory-store';

const KEYS = 10_000;
const VALUE_BYTES = 1024;
const MB = 1024 * 1024;

function newStore(name: string): LazyDagStore {
  MemoryStore.drop(name);
  return new LazyDagStore(new PersistentDagStore(new MemoryStore(name)));
}

const key = (i: number) => `key-${String(i).padStart(6, '0')}`;

function value(i: number): { id: number; payload: string } {
  return { id: i, payload: 'v'.repeat(VALUE_BYTES - 20) };
}

async function populate(store: LazyDagStore): Promise<Hash> {
  return store.withWrite(async (w) => {
    const tree = writeBTree(w, undefined);
    for (let i = 0; i < KEYS; i++) await tree.put(key(i), value(i));
    const root = await tree.flush();
    await w.setHead('main', root);
    await w.commit();
    return root;
  });
}

async function time<T>(label: string, fn: () => Promise<T>, bytes?: number): Promise<T> {
  const start = performance.now();
  const result = await fn();
  const ms = performance.now() - start;
  const rate = bytes === undefined ? '' : `  ${(bytes / MB / (ms / 1000)).toFixed(0)} MB/s`;
  console.log(`${label.padEnd(52)} ${ms.toFixed(1).padStart(8)} ms${rate}`);
  return result;
}

async function main(): Promise<void> {
  const payloadBytes = KEYS * VALUE_BYTES;

  for (let round = 0; round < 3; round++) {
    console.log(`-- round ${round + 1}`);
    const store = newStore('bench-populate');
    const root = await time(`populate ${KEYS} x 1 KB in one transaction`, () => populate(store), payloadBytes);

    await time(
      `scan ${KEYS} keys (async iterator per entry)`,
      () =>
        store.withRead(async (r) => {
          let n = 0;
          for await (const e of readBTree(r, root).scan()) if (e[0] !== '') n++;
          if (n !== KEYS) throw new Error(`scanned ${n}`);
        }),
      payloadBytes,
    );
    await time(
      `scan ${KEYS} keys (leaf batches)`,
      () =>
        store.withRead(async (r) => {
          let n = 0;
          for await (const [entries, start] of readBTree(r, root).leaves()) n += entries.length - start;
          if (n !== KEYS) throw new Error(`scanned ${n}`);
        }),
      payloadBytes,
    );
    await time(`get ${KEYS} keys one by one`, () =>
      store.withRead(async (r) => {
        const tree = readBTree(r, root);
        for (let i = 0; i < KEYS; i++) if ((await tree.get(key(i))) === undefined) throw new Error('missing');
      }),
    );
    await time('persist the populated store', () => store.persist());

    const seq = newStore('bench-sequential');
    await time(`${KEYS} sequential single-key put commits`, async () => {
      let head: Hash | undefined;
      for (let i = 0; i < KEYS; i++) {
        await seq.withWrite(async (w) => {
          const tree = writeBTree(w, head);
          await tree.put(key(i), value(i));
          head = await tree.flush();
          await w.setHead('main', head);
          await w.commit();
        });
        if (i % 1000 === 999) await seq.persist();
      }
    });

    const a = await populate(newStore('bench-diff'));
    void a;
    const diffStore = newStore('bench-diff2');
    const base = await populate(diffStore);
    const changed = await diffStore.withWrite(async (w) => {
      const tree = writeBTree(w, base);
      for (let i = 0; i < 10; i++) await tree.put(key(i * 997), { changed: i });
      const root = await tree.flush();
      await w.setHead('other', root);
      await w.commit();
      return root;
    });
    await time('diff of two 10k trees differing in 10 keys', () =>
      diffStore.withRead(async (r) => {
        const ops = await readBTree(r, base).diff(readBTree(r, changed));
        if (ops.length !== 10) throw new Error(`diff ${ops.length}`);
      }),
    );
  }
}

await main();
