/**
 * `npm run bench -- startup`: where the start-up of each implementation goes,
 * in real Chromium: reopen a stored store of 10,000 × 1 KiB on a fresh page
 * load and print, up to the first get and a little after, every IndexedDB
 * open, transaction and request with its start and end (ms from the constructor).
 *
 * BENCH_STARTUP_ROOMS=n first makes n other rooms' stores.
 * BENCH_PLAIN_LOADS=n also times n loads without the trace (median).
 * BENCH_PROFILE=1 also takes a CPU profile (CDP Profiler, 25 µs samples) of
 * each implementation's loads, from the constructor to the first get's answer
 * (the close after it is left out), and prints the functions with the most
 * time (self and inclusive); BENCH_MINIFY=0 keeps their names readable.
 */
import type { CDPSession, Page } from 'playwright-core';
import { launchChromium } from '../../e2e/chromium';
import { fixed, median } from '../measure';
import type { IdbEvent } from './idb-trace';
import type { ImplName } from './page-api';
import { serveBenchSite } from './serve';

const STORE_KEYS = 10_000;
const AFTER_MS = 30;
const LOADS = Number(process.env.BENCH_LOADS ?? 3);
const PROFILE_INTERVAL_US = 25;
const PROFILE_TOP = 25;

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number };
  readonly children?: readonly number[];
}
export interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Self and inclusive time per function over the profiles (ms), the largest first. */
export function printProfile(profiles: readonly Profile[]): void {
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const name = (n: ProfileNode) => {
      const f = n.callFrame;
      const file = f.url.split('/').at(-1) ?? '';
      return `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
    };
    profile.samples.forEach((id, i) => {
      const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
      const node = byId.get(id)!;
      self.set(name(node), (self.get(name(node)) ?? 0) + ms);
      const seen = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const n = name(byId.get(at)!);
        if (seen.has(n)) continue;
        seen.add(n);
        total.set(n, (total.get(n) ?? 0) + ms);
      }
    });
  }
  // The timeline of the last profile: the innermost frame of each stretch of samples (stretches of 50 µs or more).
  const last = profiles.at(-1)!;
  const byId = new Map(last.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of last.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const stack = (id: number) => {
    const names: string[] = [];
    for (let at: number | undefined = id; at !== undefined && names.length < 4; at = parentOf.get(at)) {
      const f = byId.get(at)!.callFrame;
      if (f.functionName === '(root)') break;
      names.push(`${f.functionName || '(anon)'}${f.url === '' ? '' : `:${f.lineNumber + 1}`}`);
    }
    return names.join(' < ');
  };
  console.log('  timeline of the last profiled load (ms from the first sample; stretches ≥ 0.05 ms):');
  let t = 0;
  let runStart = 0;
  let runName = '';
  const flush = () => {
    if (t - runStart >= 0.05 && runName !== '') console.log(`${fixed(runStart).padStart(8)} +${fixed(t - runStart).padStart(5)}  ${runName}`);
  };
  last.samples.forEach((id, i) => {
    const name = stack(id);
    if (name !== runName) {
      flush();
      runStart = t;
      runName = name;
    }
    t += (last.timeDeltas[i + 1] ?? 0) / 1000;
  });
  flush();
  const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, PROFILE_TOP);
  console.log(`  self time over ${profiles.length} loads (ms):`);
  for (const [n, ms] of top(self)) console.log(`${fixed(ms).padStart(10)}  ${n}`);
  console.log(`  inclusive time over ${profiles.length} loads (ms):`);
  for (const [n, ms] of top(total)) console.log(`${fixed(ms).padStart(10)}  ${n}`);
}

/** A CDP session on `page` with its CPU profiler enabled, sampling every `intervalUs` (not started). */
export async function openProfiler(page: Page, intervalUs: number): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: intervalUs });
  return cdp;
}

async function profiled<T>(cdp: CDPSession | undefined, profiles: Profile[], body: () => Promise<T>): Promise<T> {
  if (cdp === undefined) return body();
  await cdp.send('Profiler.start');
  const result = await body();
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
  profiles.push(profile);
  return result;
}

type Bench = Record<string, (...args: unknown[]) => Promise<unknown>>;

export async function runStartupTrace(): Promise<void> {
  const site = await serveBenchSite();
  const browser = await launchChromium();
  try {
    for (const impl of ['ours', 'replicache'] as ImplName[]) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const load = async () => {
        await page.goto(site.url(impl));
        await page.waitForFunction(() => 'bench' in window);
      };
      const step = (name: string, ...args: unknown[]) =>
        page.evaluate(([n, a]) => (window as unknown as { bench: Bench }).bench[n as string]!(...(a as unknown[])), [name, args] as const);
      await load();
      // BENCH_STARTUP_ROOMS=n: n other rooms' stores first, as the browser bench's earlier rows leave them.
      for (let i = 0; i < Number(process.env.BENCH_STARTUP_ROOMS ?? 0); i++) await step('populate', `other-${i}`, 100);
      await step('prepareStore', 'startup', STORE_KEYS);
      let last: { ms: number; events: IdbEvent[] } | undefined;
      const times: number[] = [];
      const profiles: Profile[] = [];
      let cdp: CDPSession | undefined;
      if (process.env.BENCH_PROFILE === '1') cdp = await openProfiler(page, PROFILE_INTERVAL_US);
      for (let i = 0; i < LOADS; i++) {
        await load();
        last = (await step('traceReopenGet', 'startup', STORE_KEYS, AFTER_MS)) as { ms: number; events: IdbEvent[] };
        times.push(last.ms);
      }
      // BENCH_PLAIN_LOADS=n: n more loads without the trace (its wrappers cost each request some time), their median.
      const plain: number[] = [];
      for (let i = 0; i < Number(process.env.BENCH_PLAIN_LOADS ?? 0); i++) {
        await load();
        plain.push((await step('reopenGet', 'startup', STORE_KEYS)) as number);
      }
      if (plain.length > 0) console.log(`\n${impl}: reopen → first get without the trace, median of ${plain.length} loads: ${fixed(median(plain))} ms`);
      // Profiled loads without the trace (its wrappers would be in the profile).
      const profiledTimes: number[] = [];
      for (let i = 0; cdp !== undefined && i < LOADS; i++) {
        await load();
        // The client stays open until the profile is taken: the profile holds the open and the get, not the close.
        profiledTimes.push((await profiled(cdp, profiles, () => step('reopenGetLeavingOpen', 'startup', STORE_KEYS))) as number);
        await step('closeLeftOpen');
      }
      console.log(`\n${impl}: reopen → first get ${times.map((t) => fixed(t)).join(', ')} ms; the last load:`);
      for (const e of last!.events) {
        const marker = e.start > last!.ms ? ' (after the get)' : '';
        const db = e.db.length > 40 ? `…${e.db.slice(-39)}` : e.db;
        console.log(`${fixed(e.start).padStart(8)} → ${e.end === undefined ? '     ?' : fixed(e.end).padStart(8)}  ${e.what.padEnd(14)} ${db.padEnd(40)} ${e.detail}${marker}`);
      }
      if (profiles.length > 0) {
        console.log(`  profiled loads: ${profiledTimes.map((t) => fixed(t)).join(', ')} ms`);
        printProfile(profiles);
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await site.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runStartupTrace();
