/**
 * `npm run bench -- offline`: what a persist costs during a long offline
 * session. A tab holds N pending mutations (stored), makes one more and
 * persists: the bytes it puts into the shared store (keys and JSON values)
 * and the time the persist takes, averaged over BENCH_OFFLINE_PERSISTS (20)
 * persists, on memory stores (what IndexedDB would be asked to write).
 * Before the chain record was stored in parts, the bytes grew with N (the
 * whole hash list of the chain at every persist). Prints figures; never fails on speed.
 */
import { MemoryKvProvider } from '../src/kv/memory-provider';
import { withWrappedWrites } from '../src/kv/wrapped-writes.testing';
import { Tabs } from '../src/persist/testing/tabs';
import { fixed, printTable } from './measure';

const BACKLOGS = [1_000, 10_000, 100_000];
const PERSISTS = Number(process.env.BENCH_OFFLINE_PERSISTS ?? 20);
/** Mutations made between persists while the backlog is built (a persist a second at 1,000 mutations a second). */
const PERSIST_EVERY = 1_000;

/** Puts into the shared store ('data') counted while `counting` is on. */
interface PutCounter {
  counting: boolean;
  bytes: number;
  puts: number;
}

async function persistCost(pending: number): Promise<string[]> {
  const counter: PutCounter = { counting: false, bytes: 0, puts: 0 };
  const kv = withWrappedWrites(new MemoryKvProvider(`bench-offline-${pending}`), (w) => {
    const put = w.put.bind(w);
    w.put = (key, value) => {
      if (counter.counting) {
        counter.bytes += key.length + JSON.stringify(value).length;
        counter.puts++;
      }
      return put(key, value);
    };
    return w;
  }, { wrapped: (name) => name === 'data' });
  const tabs = new Tabs({ frozen: true, provider: kv });
  try {
    const tab = await tabs.open();
    for (let i = 0; i < pending; i++) {
      await tab.client.store.mutate('put', { key: `k${i % 100}`, value: i });
      if ((i + 1) % PERSIST_EVERY === 0) await tab.client.sync();
    }
    await tab.client.sync();
    let ms = 0;
    for (let i = 0; i < PERSISTS; i++) {
      await tab.client.store.mutate('put', { key: 'last', value: i });
      counter.counting = true;
      const start = performance.now();
      await tab.client.sync();
      ms += performance.now() - start;
      counter.counting = false;
    }
    return [pending.toLocaleString('en-US'), `${fixed(counter.bytes / PERSISTS / 1024, 1)} KB`, fixed(counter.puts / PERSISTS, 1), `${fixed(ms / PERSISTS, 2)} ms`];
  } finally {
    await tabs.closeAll();
  }
}

export async function runOfflineBench(): Promise<void> {
  const rows: string[][] = [];
  for (const pending of BACKLOGS) rows.push(await persistCost(pending));
  printTable(`offline: one persist after one more mutation, with N pending (memory stores, mean of ${PERSISTS} persists)`, ['pending', 'bytes put', 'puts', 'time'], rows);
}
