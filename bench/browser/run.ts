/**
 * `npm run bench -- browser`: our client against Replicache 15.3.0 in real
 * Chromium on real IndexedDB, through their public APIs. Each round opens a
 * fresh browser context (an empty profile) per implementation, in
 * alternation; the table shows the medians of the rounds and how many times
 * better ours is (> 1 means ours is better, whichever way the figure goes).
 *
 * BENCH_ROUNDS=n (default 3) and BENCH_ROWS=key,key (the keys of MEASUREMENTS) narrow a run.
 * BENCH_PROFILE=ours|replicache takes a CPU profile (CDP Profiler) of that
 * implementation's measurements and prints where the time went (with
 * BENCH_MINIFY=0 for readable names); its figures are then not comparable.
 */
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { launchChromium } from '../../e2e/chromium';
import { fixed, median, printTable } from '../measure';
import type { ImplName } from './page-api';
import { serveBenchSite, type BenchSite } from './serve';
import { openProfiler, printProfile, type Profile } from './startup';
import type { Workloads } from './workloads';

const DEFAULT_ROUNDS = 3;
/** Runs of a short workload per round (fresh stores, one page): their median, so one cold run does not decide. */
const WARM_RUNS = 3;
const SEQUENTIAL_PUTS = 2_000;
const POPULATE_KEYS = 1_000;
const STORE_KEYS = 10_000;
/**
 * Page loads per round for the reopen rows: one first get is a single 4–9 ms
 * measurement (the first load after the store was written is the slowest),
 * so the median of 3 moved by ±20% between runs; 7 keeps it within a few %.
 */
const REOPEN_LOADS = 7;
const POKE_PENDING = 100;
const POKE_PUTS = 10;
const REBASE_PENDING = 1_000;
const PERSIST_PENDING = 1_000;
const PUSH_PENDING = 100;
const PUSH_LOADS = 3;
const TAB_ROUNDS = 5;
const TAB_WAIT_MS = 30_000;
const PROBE_TIMEOUT_MS = 30_000;

type Figures = Record<string, number>;

interface Env {
  readonly context: BrowserContext;
  readonly site: BenchSite;
  readonly impl: ImplName;
  readonly room: () => string;
}

class BenchPage {
  constructor(
    readonly page: Page,
    private readonly url: string,
  ) {}

  static async open(env: Env): Promise<BenchPage> {
    const page = await env.context.newPage();
    if (process.env.BENCH_PROFILE === env.impl) await startProfiling(page);
    page.on('pageerror', (error) => console.error(`[${env.impl}] page error:`, error));
    page.on('console', (message) => {
      if (message.type() === 'error') console.error(`[${env.impl}] console:`, message.text());
    });
    const bench = new BenchPage(page, env.site.url(env.impl));
    await bench.load();
    return bench;
  }

  /** A fresh page load: nothing survives in memory, only what IndexedDB kept. */
  async load(): Promise<void> {
    await this.page.goto(this.url);
    await this.page.waitForFunction(() => 'bench' in window);
  }

  step<K extends keyof Workloads>(name: K, ...args: Parameters<Workloads[K]>): Promise<Awaited<ReturnType<Workloads[K]>>> {
    return this.page.evaluate(
      ([n, a]) => (window as unknown as { bench: Record<string, (...x: unknown[]) => Promise<unknown>> }).bench[n as string]!(...(a as unknown[])),
      [name, args] as const,
    ) as Promise<Awaited<ReturnType<Workloads[K]>>>;
  }

  async close(): Promise<void> {
    await stopProfiling(this.page);
    return this.page.close();
  }
}

const PROFILE_INTERVAL_US = 50;
const profiling = new Map<Page, CDPSession>();
const profiles: Profile[] = [];

async function startProfiling(page: Page): Promise<void> {
  const cdp = await openProfiler(page, PROFILE_INTERVAL_US);
  await cdp.send('Profiler.start');
  profiling.set(page, cdp);
}

async function stopProfiling(page: Page): Promise<void> {
  const cdp = profiling.get(page);
  if (cdp === undefined) return;
  profiling.delete(page);
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
  profiles.push(profile);
}

async function onePage<T>(env: Env, body: (page: BenchPage) => Promise<T>): Promise<T> {
  const page = await BenchPage.open(env);
  try {
    return await body(page);
  } finally {
    await page.close();
  }
}

async function tabToTab(env: Env, n: number): Promise<number> {
  const room = env.room();
  const a = await BenchPage.open(env);
  const b = await BenchPage.open(env);
  try {
    await a.step('tabOpen', room);
    await b.step('tabOpen', room);
    const times: number[] = [];
    for (let round = 0; round < TAB_ROUNDS; round++) {
      await b.step('tabWatch', round, n);
      const start = await a.step('tabMutate', round, n);
      times.push((await b.step('tabSeen', TAB_WAIT_MS)) - start);
    }
    await Promise.all([a.step('tabClose'), b.step('tabClose')]);
    return median(times);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

/** Each measurement gives one or more figures (keys of ROWS). */
const MEASUREMENTS: Record<string, (env: Env) => Promise<Figures>> = {
  seq: (env) =>
    onePage(env, async (p) => {
      const runs: number[] = [];
      for (let i = 0; i < WARM_RUNS; i++) runs.push(await p.step('sequentialPuts', env.room(), SEQUENTIAL_PUTS));
      return { seq: median(runs) };
    }),
  subs: (env) =>
    onePage(env, async (p) => {
      const [p50, p95] = await p.step('subscriptionLatency', env.room());
      return { subsP50: p50, subsP95: p95 };
    }),
  populate: (env) =>
    onePage(env, async (p) => {
      const runs: number[] = [];
      for (let i = 0; i < WARM_RUNS; i++) runs.push(await p.step('populate', env.room(), POPULATE_KEYS));
      return { populate: median(runs) };
    }),
  reopen: (env) =>
    onePage(env, async (p) => {
      const room = env.room();
      await p.step('prepareStore', room, STORE_KEYS);
      const gets: number[] = [];
      const scans: number[] = [];
      for (let i = 0; i < REOPEN_LOADS; i++) {
        await p.load();
        gets.push(await p.step('reopenGet', room, STORE_KEYS));
      }
      for (let i = 0; i < REOPEN_LOADS; i++) {
        await p.load();
        scans.push(await p.step('reopenScan', room, STORE_KEYS));
      }
      return { reopenGet: median(gets), reopenScan: median(scans) };
    }),
  poke: (env) => onePage(env, async (p) => ({ poke: await p.step('pokeWithSubscriptions', env.room(), POKE_PENDING, POKE_PUTS) })),
  rebase: (env) => onePage(env, async (p) => ({ rebase: await p.step('rebase', env.room(), REBASE_PENDING) })),
  persist: async (env) => {
    const room = env.room();
    const a = await BenchPage.open(env);
    const b = await BenchPage.open(env);
    try {
      const end = await a.step('mutateAndStay', room, PERSIST_PENDING);
      const { at } = await b.step('probeUntilSeen', room, PERSIST_PENDING, PROBE_TIMEOUT_MS);
      await a.step('tabClose');
      return { persist: Math.max(0, at - end) };
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  },
  push: (env) =>
    onePage(env, async (p) => {
      const room = env.room();
      await p.step('makePending', room, PUSH_PENDING);
      const times: number[] = [];
      for (let i = 0; i < PUSH_LOADS; i++) {
        await p.load();
        times.push(await p.step('firstPush', room, PUSH_PENDING));
      }
      return { push: median(times) };
    }),
  tabs: async (env) => ({ tab1: await tabToTab(env, 1), tab1000: await tabToTab(env, 1_000) }),
};

interface Row {
  readonly key: string;
  readonly label: string;
  readonly better: 'higher' | 'lower';
  readonly digits: number;
}

const ROWS: readonly Row[] = [
  { key: 'seq', label: `${SEQUENTIAL_PUTS.toLocaleString('en')} sequential mutate.put (100 B) (ops/s)`, better: 'higher', digits: 0 },
  { key: 'subsP50', label: 'mutate → onData, 100 subscriptions, p50 (ms)', better: 'lower', digits: 3 },
  { key: 'subsP95', label: 'mutate → onData, 100 subscriptions, p95 (ms)', better: 'lower', digits: 3 },
  { key: 'populate', label: `populate ${POPULATE_KEYS.toLocaleString('en')} × 1 KiB in one mutation (MB/s)`, better: 'higher', digits: 0 },
  { key: 'reopenGet', label: `reopen a store of ${STORE_KEYS.toLocaleString('en')} × 1 KiB → first get (ms)`, better: 'lower', digits: 2 },
  { key: 'reopenScan', label: `reopen → scan all ${STORE_KEYS.toLocaleString('en')} keys (ms)`, better: 'lower', digits: 1 },
  { key: 'poke', label: `(e) poke of ${POKE_PUTS} puts, 100 subscriptions, ${POKE_PENDING} pending (ms)`, better: 'lower', digits: 2 },
  { key: 'rebase', label: `(f) rebase ${REBASE_PENDING.toLocaleString('en')} pending on a server update (ms)`, better: 'lower', digits: 1 },
  { key: 'persist', label: `(g) ${PERSIST_PENDING.toLocaleString('en')} pending in tab A → a tab opened then has them (ms)`, better: 'lower', digits: 1 },
  { key: 'push', label: `(h) reload with ${PUSH_PENDING} pending → first push (ms)`, better: 'lower', digits: 2 },
  { key: 'tab1', label: 'tabs: mutation in tab A → onData in tab B (ms)', better: 'lower', digits: 1 },
  { key: 'tab1000', label: 'tabs: 1,000 × 1 KiB changed in tab A → all in tab B (ms)', better: 'lower', digits: 1 },
];

const TARGET = 2;
const FLOOR = 1.5;

export async function runBrowserBench(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? DEFAULT_ROUNDS);
  const only = process.env.BENCH_ROWS?.split(',');
  const measurements = Object.entries(MEASUREMENTS).filter(([key]) => only === undefined || only.includes(key));
  const site = await serveBenchSite();
  const browser: Browser = await launchChromium();
  const figures: Record<ImplName, Record<string, number[]>> = { ours: {}, replicache: {} };
  let names = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      const order: ImplName[] = round % 2 === 0 ? ['ours', 'replicache'] : ['replicache', 'ours'];
      for (const impl of order) {
        const context = await browser.newContext();
        const env: Env = { context, site, impl, room: () => `bench-${impl}-${++names}` };
        try {
          const isolated = await onePage(env, (p) => p.step('crossOriginIsolated'));
          if (!isolated) throw new Error('the bench page is not cross-origin isolated: performance.now() would be coarse');
          for (const [key, measure] of measurements) {
            const got = await measure(env);
            for (const [figure, value] of Object.entries(got)) (figures[impl][figure] ??= []).push(value);
            console.log(`round ${round + 1} ${impl} ${key}: ${Object.entries(got).map(([f, v]) => `${f} ${fixed(v, 3)}`).join(', ')}`);
          }
        } finally {
          await context.close();
        }
      }
    }
  } finally {
    await browser.close();
    await site.close();
  }
  if (profiles.length > 0) printProfile(profiles);
  const lines: string[][] = [];
  for (const row of ROWS) {
    const a = figures.ours[row.key];
    const b = figures.replicache[row.key];
    if (a === undefined || b === undefined) continue;
    const ours = median(a);
    const theirs = median(b);
    const ratio = row.better === 'higher' ? ours / theirs : theirs / ours;
    const mark = ratio >= TARGET ? '' : ratio >= FLOOR ? ' (below 2×)' : ' (below 1.5×)';
    lines.push([row.label, fixed(ours, row.digits), fixed(theirs, row.digits), `${fixed(ratio)}×${mark}`]);
  }
  printTable(
    `browser: ours vs Replicache 15.3.0 in Chromium on IndexedDB (medians of ${rounds} alternating rounds; ratio > 1 means ours is better)`,
    ['figure', 'ours', 'replicache', 'ratio'],
    lines,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runBrowserBench();
