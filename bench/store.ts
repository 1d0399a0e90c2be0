/**
 * `npm run bench -- store`: the local store against Replicache 15.3 (memory
 * stores, NODE_ENV=production), on the figures of the store's brief:
 * sequential mutations, bulk populate (0 and 1 index), scan, subscription
 * latency, rebase of pending mutations, poke with subscriptions and pending.
 */
import { performance } from 'node:perf_hooks';
import { fixed, percentile, printTable } from './measure';

process.env.NODE_ENV = 'production';

const N = 10_000;
const KB = 1024;

function kbValue(i: number): { id: number; name: string; text: string } {
  return { id: i, name: `name-${i % 1000}`, text: 'x'.repeat(KB - 50) + String(i).padStart(8, '0') };
}
const key = (i: number) => `k/${String(i).padStart(6, '0')}`;

/** The operations every contender supports. */
interface Contender {
  mutate(name: string, args: unknown): Promise<unknown>;
  scanAll(): Promise<number>;
  subscribe(prefix: string, onData: () => void): () => void;
  poke(baseCookie: number | null, cookie: number, lmid: number, patch: unknown[]): Promise<void>;
  close(): Promise<void>;
}

type Tx = {
  put(k: string, v: unknown): Promise<void>;
  set?(k: string, v: unknown): Promise<void>;
};
const mutators = {
  put: async (tx: Tx, a: { key: string; value: unknown }) => {
    await tx.put(a.key, a.value);
  },
  populate: async (tx: Tx, a: { n: number }) => {
    for (let i = 0; i < a.n; i++) await tx.put(key(i), kbValue(i));
  },
};

let nameCounter = 0;

async function ours(indexes: Record<string, { jsonPointer: string }> = {}): Promise<Contender> {
  const { createStore } = await import('../src/db/store');
  const { MemoryStore } = await import('../src/kv/memory-store');
  const store = await createStore({
    kvStore: new MemoryStore(`bench-${++nameCounter}`),
    clientID: 'c1',
    mutators: mutators as never,
    indexes,
    logger: { error: console.error, warn() {} },
    // Background persist is not what is measured here.
    timers: { setTimeout: () => 0, clearTimeout() {} },
  });
  return {
    mutate: (name, args) => store.mutate(name, args),
    scanAll: () => store.query(async (tx) => (await tx.scan().values().toArray()).length),
    subscribe: (prefix, onData) => store.subscribe((tx) => tx.scan({ prefix }).entries().toArray(), { onData }),
    poke: (baseCookie, cookie, lmid, patch) =>
      store.applyServerUpdate({ baseCookie, cookie, lastMutationIDChanges: lmid ? { c1: lmid } : {}, patch: patch as never }),
    close: () => store.close(),
  };
}

async function replicache(indexes: Record<string, { jsonPointer: string }> = {}): Promise<Contender> {
  const { Replicache, TEST_LICENSE_KEY } = await import('replicache');
  const rep = new Replicache({
    name: `bench-rep-${++nameCounter}-${Math.random()}`,
    licenseKey: TEST_LICENSE_KEY,
    kvStore: 'mem',
    mutators: mutators as never,
    indexes,
    pullInterval: null,
    logLevel: 'error',
  });
  const clientID = rep.clientID;
  return {
    mutate: (name, args) => (rep.mutate as Record<string, (a: unknown) => Promise<unknown>>)[name]!(args),
    scanAll: () => rep.query(async (tx) => (await tx.scan().values().toArray()).length),
    subscribe: (prefix, onData) => rep.subscribe((tx) => tx.scan({ prefix }).entries().toArray(), { onData }),
    poke: (baseCookie, cookie, lmid, patch) =>
      rep.poke({
        baseCookie,
        pullResponse: { cookie, lastMutationIDChanges: lmid ? { [clientID]: lmid } : {}, patch: patch as never },
      }),
    close: () => rep.close(),
  };
}

type Make = (indexes?: Record<string, { jsonPointer: string }>) => Promise<Contender>;

async function sequentialPuts(make: Make): Promise<number> {
  const c = await make();
  const start = performance.now();
  for (let i = 0; i < N; i++) await c.mutate('put', { key: key(i), value: i });
  const ms = performance.now() - start;
  await c.close();
  return (N / ms) * 1000;
}

async function populate(make: Make, indexed: boolean): Promise<{ mbps: number; scanMbps: number }> {
  const c = await make(indexed ? { byName: { jsonPointer: '/name' } } : {});
  const start = performance.now();
  await c.mutate('populate', { n: N });
  const ms = performance.now() - start;
  const bytes = N * KB;
  let scanMs = Infinity;
  for (let r = 0; r < 5; r++) {
    const s = performance.now();
    const n = await c.scanAll();
    if (n !== N) throw new Error(`scan saw ${n}`);
    scanMs = Math.min(scanMs, performance.now() - s);
  }
  await c.close();
  return { mbps: bytes / 1e6 / (ms / 1000), scanMbps: bytes / 1e6 / (scanMs / 1000) };
}

async function subscriptionLatency(make: Make): Promise<number> {
  const c = await make();
  const waiting = new Map<number, () => void>();
  const unsubs: (() => void)[] = [];
  for (let p = 0; p < 100; p++) {
    let first = true;
    unsubs.push(
      c.subscribe(`p${String(p).padStart(3, '0')}/`, () => {
        if (first) {
          first = false;
          return;
        }
        waiting.get(p)?.();
      }),
    );
  }
  await new Promise((r) => setTimeout(r, 20));
  const samples: number[] = [];
  for (let i = 0; i < 300; i++) {
    const p = i % 100;
    const done = new Promise<void>((resolve) => waiting.set(p, resolve));
    const start = performance.now();
    void c.mutate('put', { key: `p${String(p).padStart(3, '0')}/k`, value: i });
    await done;
    samples.push(performance.now() - start);
  }
  for (const u of unsubs) u();
  await c.close();
  return percentile(samples.slice(50), 50);
}

async function rebase(make: Make, pending: number, subs: number, valueOf: (i: number) => unknown): Promise<number> {
  const c = await make();
  const unsubs: (() => void)[] = [];
  for (let p = 0; p < subs; p++) unsubs.push(c.subscribe(`p${String(p).padStart(3, '0')}/`, () => {}));
  for (let i = 0; i < pending; i++) await c.mutate('put', { key: key(i), value: valueOf(i) });
  await new Promise((r) => setTimeout(r, 20));
  const start = performance.now();
  await c.poke(null, 1, 1, [{ op: 'put', key: 'p000/server', value: 1 }]);
  const ms = performance.now() - start;
  for (const u of unsubs) u();
  await c.close();
  return ms;
}

async function bestOf<T extends number>(runs: number, f: () => Promise<T>, better: (a: T, b: T) => boolean): Promise<T> {
  let best = await f();
  for (let i = 1; i < runs; i++) {
    const v = await f();
    if (better(v, best)) best = v;
  }
  return best;
}
const max = (a: number, b: number) => a > b;
const min = (a: number, b: number) => a < b;

export async function runStoreBench(): Promise<void> {
  const contenders: [string, Make][] = [
    ['ours', ours],
    ['replicache 15.3', replicache],
  ];
  const results = new Map<string, string[]>();
  for (const [name, make] of contenders) {
    const puts = await bestOf(2, () => sequentialPuts(make), max);
    const pop0 = await populate(make, false);
    const pop1 = await populate(make, true);
    const sub = await bestOf(2, () => subscriptionLatency(make), min);
    const rb = await bestOf(3, () => rebase(make, 1000, 0, kbValue), min);
    const poke = await bestOf(5, () => rebase(make, 100, 100, (i) => i), min);
    results.set(name, [
      fixed(puts, 0),
      fixed(pop0.mbps, 1),
      fixed(pop1.mbps, 1),
      fixed(pop0.scanMbps, 0),
      fixed(sub, 3),
      fixed(rb, 1),
      fixed(poke, 2),
    ]);
  }
  const labels = [
    '10k sequential put mutations (mutations/s, target ≥ 10k)',
    'populate 10k × 1 KB, no index (MB/s, target ≥ 60)',
    'populate 10k × 1 KB, 1 index (MB/s, target ≥ 60)',
    'scan 10k × 1 KB (MB/s, aim ~900)',
    '100 subscriptions: mutate → onData p50 (ms, target ≤ 0.05)',
    'rebase 1,000 pending 1 KB mutations (ms, target ≤ 100)',
    'poke with 100 subscriptions, 100 pending (ms, target ≤ 3)',
  ];
  const names = contenders.map(([n]) => n);
  const rows = labels.map((label, i) => {
    const ourVal = Number(results.get('ours')![i]);
    const theirs = Number(results.get('replicache 15.3')![i]);
    return [label, ...names.map((n) => results.get(n)![i]!), `${fixed(ourVal / theirs)}×`];
  });
  printTable(
    'store: ours vs Replicache 15.3 (memory stores; first four rows higher is better, last three lower is better)',
    ['figure', ...names, 'ours/replicache'],
    rows,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runStoreBench();
