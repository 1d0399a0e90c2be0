/**
 * Micro-benchmarks of the store engine below db/: B+tree over the lazy dag
 * over the persistent dag over a MemoryStore. Prints figures; asserts nothing.
 *   npm run bench -- btree
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

/** Runs `fn` `repeat` times and prints the median (the machine is shared, so single runs are noisy). */
async function time<T>(label: string, fn: () => Promise<T>, bytes?: number, repeat = 1): Promise<T> {
  const times: number[] = [];
  let result!: T;
  for (let i = 0; i < repeat; i++) {
    const start = performance.now();
    result = await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const ms = times[Math.floor(times.length / 2)]!;
  const rate = bytes === undefined ? '' : `  ${(bytes / MB / (ms / 1000)).toFixed(0)} MB/s`;
  const runs = repeat > 1 ? ` (median of ${repeat})` : '';
  console.log(`${label.padEnd(52)} ${ms.toFixed(1).padStart(8)} ms${rate}${runs}`);
  return result;
}

export async function runBTreeBench(): Promise<void> {
  const payloadBytes = KEYS * VALUE_BYTES;

  for (let round = 0; round < 2; round++) {
    console.log(`-- round ${round + 1}`);
    const store = newStore('bench-populate');
    await time(`populate ${KEYS} x 1 KB in one transaction`, () => populate(newStore('bench-populate-2')), payloadBytes, 7);
    const root = await populate(store);

    await time(
      `scan ${KEYS} keys (async iterator per entry)`,
      () =>
        store.withRead(async (r) => {
          let n = 0;
          for await (const e of readBTree(r, root).scan()) if (e[0] !== '') n++;
          if (n !== KEYS) throw new Error(`scanned ${n}`);
        }),
      payloadBytes,
      15,
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
      15,
    );
    await time(`get ${KEYS} keys one by one`, () =>
      store.withRead(async (r) => {
        const tree = readBTree(r, root);
        for (let i = 0; i < KEYS; i++) if ((await tree.get(key(i))) === undefined) throw new Error('missing');
      }),
      undefined,
      5,
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
