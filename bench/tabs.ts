/**
 * Two tabs of one user and room in one process (two clients over one shared
 * memory store, told of each other's writes by the BroadcastChannel), ours
 * and Replicache 15.3.0's, through their public APIs, with real timers:
 * how long until a mutation in tab A shows in tab B's subscription.
 */
import { performance } from 'node:perf_hooks';
import { median } from './measure';

const KB = 1024;
const ROUNDS = 5;

export type TabKind = 'ours' | 'replicache';

interface Tab {
  mutate(name: string, args: unknown): Promise<unknown>;
  /** Calls back with the number of keys under `p` now and whenever it changes. */
  watchCount(p: string, onCount: (count: number) => void): () => void;
  close(): Promise<void>;
}

type Tx = { put?(k: string, v: unknown): Promise<void>; set?(k: string, v: unknown): Promise<void> };
const write = (tx: Tx, k: string, v: unknown) => (tx.set ? tx.set(k, v) : tx.put!(k, v));
const mutators = {
  fill: async (tx: Tx, a: { round: number; n: number }) => {
    for (let i = 0; i < a.n; i++) await write(tx, `r${a.round}/${String(i).padStart(5, '0')}`, { i, text: 'x'.repeat(KB - 40) });
  },
};

let names = 0;

async function openTabs(kind: TabKind): Promise<[Tab, Tab]> {
  const name = `tabs-bench-${++names}-${Math.floor(Math.random() * 1e9)}`;
  if (kind === 'ours') {
    const { Reflect } = await import('../src/reflect');
    const { MemoryKvProvider } = await import('../src/kv/memory-provider');
    const provider = new MemoryKvProvider(name);
    const open = (): Tab => {
      const r = new Reflect({ userID: 'u', roomID: name, socketOrigin: null, mutators: mutators as never, kvStore: provider, logSinks: [] });
      return {
        mutate: (n, args) => (r.mutate as Record<string, (a: unknown) => Promise<unknown>>)[n]!(args),
        watchCount: (p, onCount) => r.subscribe((tx) => tx.scan({ prefix: p }).keys().toArray(), (keys) => onCount(keys.length)),
        close: () => r.close(),
      };
    };
    const a = open();
    await a.mutate('fill', { round: -1, n: 0 });
    return [a, open()];
  }
  const { Replicache, TEST_LICENSE_KEY } = await import('replicache');
  const open = (): Tab => {
    const rep = new Replicache({ name, licenseKey: TEST_LICENSE_KEY, kvStore: 'mem', mutators: mutators as never, pullInterval: null, logLevel: 'error' });
    return {
      mutate: (n, args) => (rep.mutate as Record<string, (a: unknown) => Promise<unknown>>)[n]!(args),
      watchCount: (p, onCount) => rep.subscribe((tx) => tx.scan({ prefix: p }).keys().toArray(), (keys) => onCount(keys.length)),
      close: async () => {
        await rep.clientGroupID;
        await new Promise((r) => setTimeout(r, 50));
        await rep.close();
      },
    };
  };
  const a = open();
  await a.mutate('fill', { round: -1, n: 0 });
  return [a, open()];
}

/** ms from a mutation of `n` × 1 KB keys in tab A to tab B's subscription seeing all of them; median of ROUNDS. */
export async function tabToTab(kind: TabKind, n: number): Promise<number> {
  const [a, b] = await openTabs(kind);
  const times: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const seen = new Promise<number>((resolve) => {
        let stop: (() => void) | undefined;
        stop = b.watchCount(`r${round}/`, (count) => {
          if (count < n) return;
          resolve(performance.now());
          stop?.();
        });
      });
      // Let the subscription's first run settle.
      await new Promise((r) => setTimeout(r, 20));
      const start = performance.now();
      await a.mutate('fill', { round, n });
      times.push((await withTimeout(seen, 30_000, `${kind}: tab B never saw round ${round}`)) - start);
    }
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
  return median(times);
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(message)), ms))]);
}

/** Ours only: ms of the refresh itself in tab B (load the group head, merge, fire subscriptions) after tab A stored `n` changed keys. */
export async function oursRefresh(n: number): Promise<number> {
  const { Tabs } = await import('../src/persist/testing/tabs');
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const tabs = new Tabs({ frozen: true });
    const a = await tabs.open({ mutators: mutators as never });
    const b = await tabs.open({ mutators: mutators as never });
    let fired = 0;
    b.client.store.subscribe((tx) => tx.scan({ prefix: 'r0/' }).keys().toArray(), { onData: () => void fired++ });
    await a.client.store.mutate('fill', { round: 0, n });
    await a.client.sync();
    const start = performance.now();
    await b.client.sync();
    times.push(performance.now() - start);
    if ((await b.client.store.query((tx) => tx.scan({ prefix: 'r0/' }).keys().toArray())).length !== n) throw new Error('refresh: tab B misses keys');
    await tabs.closeAll();
  }
  return median(times);
}

/**
 * Ours only: tab A stores a backlog of `n` offline mutations, tab B takes it in
 * and moves the group head (one mutation), then A's next sync merges B's head:
 * the chunks that sync reads from the shared store (A's stored commits need
 * none: it knows them) and its ms; median of ROUNDS.
 */
export async function oursBacklogMerge(n: number): Promise<{ readonly reads: number; readonly ms: number }> {
  const { Tabs } = await import('../src/persist/testing/tabs');
  const { MemoryKvProvider } = await import('../src/kv/memory-provider');
  let chunkReads = 0;
  const counted = <T extends { get(key: string): Promise<unknown> }>(r: T): T => {
    const get = r.get.bind(r);
    r.get = ((key: string) => {
      if (key.startsWith('c/') && key.endsWith('/d')) chunkReads++;
      return get(key);
    }) as T['get'];
    return r;
  };
  class CountingProvider extends MemoryKvProvider {
    override async open(name: string) {
      const store = await super.open(name);
      const [read, write] = [store.read.bind(store), store.write.bind(store)];
      store.read = async () => counted(await read());
      store.write = async () => counted(await write());
      return store;
    }
  }
  const reads: number[] = [];
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const tabs = new Tabs({ frozen: true, provider: new CountingProvider(`backlog-merge-${++names}-${Math.floor(Math.random() * 1e9)}`) });
    const a = await tabs.open();
    for (let i = 0; i < n; i++) await a.client.store.mutate('increment', { key: 'n' });
    await a.client.sync();
    const b = await tabs.open();
    await b.client.store.mutate('put', { key: 'b', value: round });
    await b.client.sync();
    await a.client.store.mutate('increment', { key: 'n' });
    const before = chunkReads;
    const start = performance.now();
    if ((await a.client.sync()) !== 'synced') throw new Error('backlog merge: the sync did not end');
    times.push(performance.now() - start);
    reads.push(chunkReads - before);
    if ((await a.client.store.query((tx) => tx.get('n'))) !== n + 1) throw new Error('backlog merge: tab A lost a mutation');
    await tabs.closeAll();
  }
  return { reads: median(reads), ms: median(times) };
}

/** `npm run bench -- tabs`: ours only, the tab figures of the store bench's (h) rows and the merge after a stored backlog. */
export async function runTabsBench(): Promise<void> {
  const fixed = (x: number, digits = 1) => x.toFixed(digits);
  console.log(`tabs: mutation in tab A → onData in tab B: ${fixed(await tabToTab('ours', 1))} ms`);
  console.log(`tabs: 1,000 × 1 KB changed in tab A → all in tab B: ${fixed(await tabToTab('ours', 1_000))} ms`);
  console.log(`tabs: the refresh in tab B after tab A stored 1,000 × 1 KB changed keys: ${fixed(await oursRefresh(1_000), 2)} ms`);
  for (const n of (process.env.BENCH_TABS_BACKLOG ?? '10000').split(',').map(Number)) {
    const { reads, ms } = await oursBacklogMerge(n);
    console.log(`tabs: A's merge of a group head B moved after A stored ${n.toLocaleString('en')} offline mutations: ${reads} chunk reads, ${fixed(ms)} ms`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runTabsBench();
