/**
 * `npx tsx bench/browser/ab-startup.ts OTHER_CHECKOUT [PAIRS]`: reopen a
 * stored store of 10,000 × 1 KiB → first get, for this checkout's client
 * and another checkout's (e.g. a `git worktree` of an earlier commit), in
 * one browser context on one stored store, the two pages loaded in
 * alternation (paired loads, the order swapped each pair): on a busy
 * machine the pairs see the same load, where separate runs do not. Prints
 * each side's median and quartiles and in how many pairs this checkout was
 * faster. Both clients must read the same storage format. A third page
 * (the other checkout's code under a name of its own) writes the store: the
 * side whose page wrote it reopened about 1 ms slower in an A/A run.
 */
import { resolve } from 'node:path';
import { launchChromium } from '../../e2e/chromium';
import { fixed, median, percentile } from '../measure';
import { serveBenchSite } from './serve';

const STORE_KEYS = 10_000;
const DEFAULT_PAIRS = 30;

type Bench = Record<string, (...args: unknown[]) => Promise<unknown>>;

export async function runStartupAB(other: string, pairs: number): Promise<void> {
  const sides = { this: resolve(import.meta.dirname, 'ours-page.ts'), other: resolve(other, 'bench/browser/ours-page.ts') };
  const site = await serveBenchSite({ ...sides, writer: sides.other });
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext()).newPage();
    const load = async (side: string) => {
      await page.goto(site.url(side));
      await page.waitForFunction(() => 'bench' in window);
    };
    const step = (name: string, ...args: unknown[]) =>
      page.evaluate(([n, a]) => (window as unknown as { bench: Bench }).bench[n as string]!(...(a as unknown[])), [name, args] as const);
    await load('writer');
    // BENCH_AB_ROOMS=n: n other rooms' stores first, as the browser bench's earlier rows leave them.
    for (let i = 0; i < Number(process.env.BENCH_AB_ROOMS ?? 0); i++) await step('populate', `ab-other-${i}`, 100);
    await step('prepareStore', 'ab', STORE_KEYS);
    const times: Record<keyof typeof sides, number[]> = { this: [], other: [] };
    for (let i = 0; i < pairs; i++) {
      for (const side of i % 2 === 0 ? (['other', 'this'] as const) : (['this', 'other'] as const)) {
        await load(side);
        times[side].push((await step('reopenGet', 'ab', STORE_KEYS)) as number);
      }
    }
    for (const side of ['other', 'this'] as const) {
      const t = times[side];
      console.log(`${side.padEnd(5)}: median ${fixed(median(t))} ms (quartiles ${fixed(percentile(t, 25))}–${fixed(percentile(t, 75))})`);
    }
    const faster = times.this.filter((t, i) => t < times.other[i]!).length;
    console.log(`this checkout was faster in ${faster} of ${pairs} pairs`);
  } finally {
    await browser.close();
    await site.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [other, pairs] = process.argv.slice(2);
  if (other === undefined) {
    console.error('usage: npx tsx bench/browser/ab-startup.ts OTHER_CHECKOUT [PAIRS]');
    process.exit(2);
  }
  await runStartupAB(other, Number(pairs ?? DEFAULT_PAIRS));
}
