/**
 * `npx tsx bench/main.ts store` (NODE_ENV=production): the local store against
 * Replicache 15.3.0, public API only, both over memory stores (ours: a
 * MemoryStore; theirs: kvStore 'mem', which keeps its data per name for the
 * life of the process, so a reopen reads what the last instance persisted).
 * Each row prints ours, theirs and how many times faster ours is (> 1 is
 * better for us, whichever way the figure goes).
 */
import { performance } from 'node:perf_hooks';
import { fixed, median, percentile, printTable } from './measure';
import { oursRefresh, tabToTab } from './tabs';
import { prefix, subscribeAll, SUBSCRIPTIONS } from './subscriptions';

process.env.NODE_ENV = 'production';

const KB = 1024;
const SEQUENTIAL_PUTS = 10_000;
const SCAN_KEYS = 10_000;
/** One populate is a single measurement of a few milliseconds (a GC or code still warming up can double it): each row takes the median of this many. */
const POPULATE_RUNS = 5;
const OPEN_KEYS = 10_000;
const POKE_PUTS = 10;
/** Server updates timed per (f) row: each takes ~0.1 ms, so 30 mostly timed code still warming up. */
const POKE_ROUNDS = 300;
/** Replicache persists its memory layer after about a second of idle time, and only then. */
const REPLICACHE_PERSIST_WAIT_MS = 3_000;
const REPLICACHE_SETUP_WAIT_MS = 50;

function kbValue(i: number): { id: number; name: string; text: string } {
  return { id: i, name: `name-${i % 1000}`, text: 'x'.repeat(KB - 50) + String(i).padStart(8, '0') };
}
const key = (i: number) => `k/${String(i).padStart(6, '0')}`;

type Tx = {
  put?(k: string, v: unknown): Promise<void>;
  set?(k: string, v: unknown): Promise<void>;
};
const write = (tx: Tx, k: string, v: unknown) => (tx.set ? tx.set(k, v) : tx.put!(k, v));
const mutators = {
  put: async (tx: Tx, a: { key: string; value: unknown }) => {
    await write(tx, a.key, a.value);
  },
  populate: async (tx: Tx, a: { n: number }) => {
    for (let i = 0; i < a.n; i++) await write(tx, key(i), kbValue(i));
  },
};

type Indexes = Record<string, { jsonPointer: string }>;
type PatchOp = { op: 'put'; key: string; value: unknown };

/** What every contender offers, through its public API. */
interface Contender {
  mutate(name: string, args: unknown): Promise<unknown>;
  get(k: string): Promise<unknown>;
  scanValues(limit?: number): Promise<number>;
  subscribe(prefix: string, onData: () => void): () => void;
  /** A server update that acknowledges nothing, so every pending mutation is rebased. */
  poke(baseCookie: number | null, cookie: number, patch: PatchOp[]): Promise<void>;
  /** Makes sure what was written survives close (ours: close persists; Replicache: wait for its idle persist). */
  settle(): Promise<void>;
  close(): Promise<void>;
  /** Closes and forgets the stored data, so stores of earlier rows do not weigh on the heap of later ones. */
  destroy(): Promise<void>;
}

interface Options {
  name?: string;
  indexes?: Indexes;
}
type Make = (options?: Options) => Promise<Contender>;

let nameCounter = 0;
const freshName = () => `bench-${++nameCounter}-${Math.floor(Math.random() * 1e9)}`;

/**
 * Each side's modules, imported once (after NODE_ENV is set): a dynamic import
 * of a module already loaded still costs a resolve through tsx's loader
 * thread (~0.1–0.3 ms), which a timed open ((g)) would count, twice for ours.
 */
let oursModules: Promise<[typeof import('../src/db/store'), typeof import('../src/kv/memory-store')]> | undefined;
let replicacheModule: Promise<typeof import('replicache')> | undefined;

async function ours({ name = freshName(), indexes = {} }: Options = {}): Promise<Contender> {
  const [{ createStore }, { MemoryStore }] = await (oursModules ??= Promise.all([import('../src/db/store'), import('../src/kv/memory-store')]));
  const store = await createStore({
    kvStore: new MemoryStore(name),
    clientID: 'c1',
    mutators: mutators as never,
    indexes,
    logger: { error: console.error, warn() {} },
    // Background persist is not what is measured; close() persists.
    timers: { setTimeout: () => 0, clearTimeout() {} },
  });
  return {
    mutate: (n, args) => store.mutate(n, args),
    get: (k) => store.query((tx) => tx.get(k)),
    scanValues: (limit) => store.query(async (tx) => (await tx.scan(limit === undefined ? {} : { limit }).values().toArray()).length),
    subscribe: (p, onData) => store.subscribe((tx) => tx.scan({ prefix: p }).entries().toArray(), { onData }),
    poke: (baseCookie, cookie, patch) => store.applyServerUpdate({ baseCookie, cookie, lastMutationIDChanges: {}, patch: patch as never }),
    settle: async () => {},
    close: () => store.close(),
    destroy: async () => {
      await store.close();
      MemoryStore.drop(name);
    },
  };
}

async function replicache({ name = freshName(), indexes = {} }: Options = {}): Promise<Contender> {
  const { Replicache, TEST_LICENSE_KEY, dropDatabase } = await (replicacheModule ??= import('replicache'));
  const rep = new Replicache({
    name,
    licenseKey: TEST_LICENSE_KEY,
    kvStore: 'mem',
    mutators: mutators as never,
    indexes,
    pullInterval: null,
    logLevel: 'error',
  });
  return {
    mutate: (n, args) => (rep.mutate as Record<string, (a: unknown) => Promise<unknown>>)[n]!(args),
    get: (k) => rep.query((tx) => tx.get(k)),
    scanValues: (limit) => rep.query(async (tx) => (await tx.scan(limit === undefined ? {} : { limit }).values().toArray()).length),
    subscribe: (p, onData) => rep.subscribe((tx) => tx.scan({ prefix: p }).entries().toArray(), { onData }),
    // poke() is Replicache's experimental entry for a server update (the path a pull answer takes).
    poke: (baseCookie, cookie, patch) =>
      rep.poke({ baseCookie, pullResponse: { cookie, lastMutationIDChanges: {}, patch: patch as never } }),
    settle: () => sleep(REPLICACHE_PERSIST_WAIT_MS),
    close: () => closeReplicache(rep),
    destroy: async () => {
      await closeReplicache(rep);
      await dropDatabase(rep.idbName, { kvStore: 'mem' });
    },
  };
}

/**
 * Replicache starts an interval late in its setup and clears it when closed;
 * closed before that point, the interval stays and the process never exits.
 */
async function closeReplicache(rep: { clientGroupID: Promise<string>; close(): Promise<void> }): Promise<void> {
  await rep.clientGroupID;
  await sleep(REPLICACHE_SETUP_WAIT_MS);
  await rep.close();
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function timed(body: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await body();
  return performance.now() - start;
}

// ---- the rows ----

/** (a) mutations per second, best of 3 fresh stores. */
async function sequentialPuts(make: Make): Promise<number> {
  let best = 0;
  for (let r = 0; r < 3; r++) best = Math.max(best, await sequentialPutsOnce(make));
  return best;
}

async function sequentialPutsOnce(make: Make): Promise<number> {
  const c = await make();
  const ms = await timed(async () => {
    for (let i = 0; i < SEQUENTIAL_PUTS; i++) await c.mutate('put', { key: key(i), value: i });
  });
  await c.destroy();
  return (SEQUENTIAL_PUTS / ms) * 1000;
}

/** (b) MB/s of one mutation writing n × 1 KB, the median of POPULATE_RUNS fresh stores; (c) MB/s of scanning the last one back (best of 5). */
async function populate(make: Make, n: number, indexed: boolean, scan: boolean): Promise<{ mbps: number; scanMbps: number }> {
  const options: Options = { indexes: indexed ? { byName: { jsonPointer: '/name' } } : {} };
  const bytes = n * KB;
  const runs: number[] = [];
  for (let run = 1; run < POPULATE_RUNS; run++) {
    const c = await make(options);
    runs.push(await timed(() => c.mutate('populate', { n })));
    await c.destroy();
  }
  const c = await make(options);
  runs.push(await timed(() => c.mutate('populate', { n })));
  const ms = median(runs);
  let scanMs = Number.NaN;
  if (scan) {
    scanMs = Infinity;
    for (let r = 0; r < 5; r++) {
      let seen = 0;
      scanMs = Math.min(scanMs, await timed(async () => void (seen = await c.scanValues())));
      if (seen !== n) throw new Error(`scan saw ${seen} of ${n}`);
    }
  }
  await c.destroy();
  return { mbps: bytes / 1e6 / (ms / 1000), scanMbps: bytes / 1e6 / (scanMs / 1000) };
}


/** (d) ms from mutate to the matching onData, with 100 subscriptions: p50 and p95. */
async function subscriptionLatency(make: Make): Promise<{ p50: number; p95: number }> {
  const c = await make();
  const subs = await subscribeAll((p, onData) => c.subscribe(p, onData));
  const samples: number[] = [];
  const WARMUP = 100;
  for (let i = 0; i < 600; i++) {
    const p = i % SUBSCRIPTIONS;
    const done = subs.waitFor(p);
    const start = performance.now();
    void c.mutate('put', { key: `${prefix(p)}k`, value: i });
    await done;
    if (i >= WARMUP) samples.push(performance.now() - start);
  }
  subs.end();
  await c.destroy();
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

/**
 * ms to apply a server update (a poke acknowledging nothing) over `pending`
 * local mutations of `valueOf(i)`, each rebased; with `subscribed`, 100
 * subscriptions are open and the time runs until the matching ones fired.
 * Median of the later `rounds` updates on the same store.
 */
async function serverUpdate(
  make: Make,
  opts: { pending: number; value: (i: number) => unknown; puts: number; subscribed: boolean; rounds: number },
): Promise<number> {
  const c = await make();
  const subs = opts.subscribed ? await subscribeAll((p, onData) => c.subscribe(p, onData)) : undefined;
  for (let i = 0; i < opts.pending; i++) await c.mutate('put', { key: key(i), value: opts.value(i) });
  const times: number[] = [];
  for (let r = 0; r < opts.rounds; r++) {
    const patch: PatchOp[] = [];
    const fired: Promise<void>[] = [];
    for (let j = 0; j < opts.puts; j++) {
      patch.push({ op: 'put', key: `${prefix(j)}server`, value: { round: r, j, text: 'y'.repeat(100) } });
      if (subs !== undefined) fired.push(subs.waitFor(j));
    }
    times.push(await timed(async () => Promise.all([c.poke(r === 0 ? null : r, r + 1, patch), ...fired])));
  }
  subs?.end();
  await c.destroy();
  // The first third warms the code paths up.
  return median(times.slice(Math.floor(opts.rounds / 3)));
}

/** (g) ms from opening over a stored OPEN_KEYS × 1 KB store to the first get, and to a scan of 100 keys. */
async function reopen(make: Make, rounds: number): Promise<{ get: number; scan: number }> {
  const name = freshName();
  const first = await make({ name });
  await first.mutate('populate', { n: OPEN_KEYS });
  await first.settle();
  await first.close();
  const gets: number[] = [];
  const scans: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let c: Contender | undefined;
    let value: unknown;
    gets.push(await timed(async () => void (value = await (c = await make({ name })).get(key(OPEN_KEYS - 1)))));
    if (value === undefined) throw new Error('reopen: the stored data is not there');
    await c!.close();
    let seen = 0;
    scans.push(await timed(async () => void (seen = await (c = await make({ name })).scanValues(100))));
    if (seen !== 100) throw new Error(`reopen: scan saw ${seen}`);
    await c!.close();
  }
  await (await make({ name })).destroy();
  return { get: median(gets), scan: median(scans) };
}

// ---- the table ----

type Better = 'higher' | 'lower';
interface Row {
  label: string;
  better: Better;
  /** Minimum speed-up wanted. */
  target: number;
  digits: number;
  measure: (make: Make) => Promise<number>;
}

/** Runs a measurement once per contender and hands out its parts to several rows. */
function shared<T>(run: (make: Make) => Promise<T>): (make: Make) => Promise<T> {
  const cache = new Map<Make, Promise<T>>();
  return (make) => {
    let p = cache.get(make);
    if (p === undefined) cache.set(make, (p = run(make)));
    return p;
  };
}

function rows(): Row[] {
  const pop = (n: number, indexed: boolean) => shared((make) => populate(make, n, indexed, n === SCAN_KEYS && !indexed));
  const pop10k = pop(10_000, false);
  const subs = shared(subscriptionLatency);
  const open = shared((make) => reopen(make, 7));
  const out: Row[] = [
    {
      label: '(a) 10,000 sequential single-key put mutations (mutations/s)',
      better: 'higher',
      target: 2,
      digits: 0,
      measure: sequentialPuts,
    },
  ];
  for (const n of [1_000, 10_000]) {
    for (const indexed of [false, true]) {
      const m = n === SCAN_KEYS && !indexed ? pop10k : pop(n, indexed);
      out.push({
        label: `(b) populate ${n.toLocaleString('en')} × 1 KB in one mutation, ${indexed ? '1 index' : 'no index'} (MB/s)`,
        better: 'higher',
        target: 1,
        digits: 1,
        measure: async (make) => (await m(make)).mbps,
      });
    }
  }
  out.push(
    { label: '(c) scan 10,000 × 1 KB (MB/s)', better: 'higher', target: 1, digits: 0, measure: async (make) => (await pop10k(make)).scanMbps },
    { label: '(d) 100 subscriptions: mutate → onData p50 (ms)', better: 'lower', target: 2, digits: 3, measure: async (make) => (await subs(make)).p50 },
    { label: '(d) 100 subscriptions: mutate → onData p95 (ms)', better: 'lower', target: 2, digits: 3, measure: async (make) => (await subs(make)).p95 },
  );
  for (const pending of [10, 100, 1_000]) {
    out.push({
      label: `(e) server update over ${pending.toLocaleString('en')} pending 1 KB mutations (ms)`,
      better: 'lower',
      target: 2,
      digits: 2,
      measure: (make) => serverUpdate(make, { pending, value: kbValue, puts: 1, subscribed: false, rounds: pending >= 1000 ? 6 : 30 }),
    });
  }
  for (const pending of [0, 10, 100]) {
    out.push({
      label: `(f) 10-put poke, 100 subscriptions, ${pending} pending (ms)`,
      better: 'lower',
      target: 2,
      digits: 2,
      measure: (make) => serverUpdate(make, { pending, value: (i) => i, puts: POKE_PUTS, subscribed: true, rounds: POKE_ROUNDS }),
    });
  }
  out.push(
    {
      label: '(h) tabs: mutation in tab A → onData in tab B (ms)',
      better: 'lower',
      target: 2,
      digits: 1,
      measure: (make) => tabToTab(make === ours ? 'ours' : 'replicache', 1),
    },
    {
      label: '(h) tabs: 1,000 × 1 KB changed in tab A → all in tab B (ms)',
      better: 'lower',
      target: 2,
      digits: 1,
      measure: (make) => tabToTab(make === ours ? 'ours' : 'replicache', 1_000),
    },
    { label: '(g) open stored 10,000 × 1 KB → first get (ms)', better: 'lower', target: 1, digits: 2, measure: async (make) => (await open(make)).get },
    { label: '(g) open stored 10,000 × 1 KB → scan 100 keys (ms)', better: 'lower', target: 1, digits: 2, measure: async (make) => (await open(make)).scan },
  );
  return out;
}

/**
 * BENCH_STORE_ROUNDS (default 3): each row is measured this many times for each implementation, alternating which goes
 * first; the figures are the medians, so one slow measurement (a GC, another process) does not make the row.
 */
const STORE_ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_STORE_ROUNDS ?? '3')) || 1);

export async function runStoreBench(): Promise<void> {
  const only = process.env.BENCH_ROWS?.split(',');
  const selected = () => rows().filter((r) => only === undefined || only.some((o) => r.label.startsWith(`(${o})`)));
  // A table per round: rows sharing one measurement (shared()) measure again in each round.
  const tables = Array.from({ length: STORE_ROUNDS }, selected);
  const lines: string[][] = [];
  for (const [i, row] of tables[0]!.entries()) {
    const [ourRounds, theirRounds]: number[][] = [[], []];
    for (let round = 0; round < STORE_ROUNDS; round++) {
      const order = round % 2 === 0 ? ([ours, replicache] as const) : ([replicache, ours] as const);
      for (const make of order) (make === ours ? ourRounds : theirRounds).push(await tables[round]![i]!.measure(make));
    }
    const [a, b] = [median(ourRounds), median(theirRounds)];
    const speedup = row.better === 'higher' ? a / b : b / a;
    const mark = speedup >= row.target ? '' : ' (below target)';
    lines.push([row.label, fixed(a, row.digits), fixed(b, row.digits), `${fixed(speedup)}×${mark}`, `≥ ${row.target}×`]);
    console.log(`${row.label}: ours ${fixed(a, row.digits)}, replicache ${fixed(b, row.digits)}, ${fixed(speedup)}×`);
  }
  printTable(
    `store: ours vs Replicache 15.3.0 (memory stores; medians of ${STORE_ROUNDS} alternating rounds; speed-up > 1 means ours is faster)`,
    ['figure', 'ours', 'replicache', 'speed-up', 'target'],
    lines,
  );
  if (only === undefined || only.includes('h')) {
    console.log(`(h) ours only: the refresh in tab B after tab A stored 1,000 × 1 KB changed keys: ${fixed(await oursRefresh(1_000), 2)} ms`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runStoreBench();
