/**
 * `npm run bench -- startup`: where the start-up of each implementation goes,
 * in real Chromium: reopen a stored store of 10,000 × 1 KiB on a fresh page
 * load and print, up to the first get and a little after, every IndexedDB
 * open, transaction and request with its start and end (ms from the constructor).
 */
import { launchChromium } from '../../e2e/chromium';
import { fixed } from '../measure';
import type { IdbEvent } from './idb-trace';
import type { ImplName } from './page-api';
import { serveBenchSite } from './serve';

const STORE_KEYS = 10_000;
const AFTER_MS = 30;
const LOADS = 3;

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
      await step('prepareStore', 'startup', STORE_KEYS);
      let last: { ms: number; events: IdbEvent[] } | undefined;
      const times: number[] = [];
      for (let i = 0; i < LOADS; i++) {
        await load();
        last = (await step('traceReopenGet', 'startup', STORE_KEYS, AFTER_MS)) as { ms: number; events: IdbEvent[] };
        times.push(last.ms);
      }
      console.log(`\n${impl}: reopen → first get ${times.map((t) => fixed(t)).join(', ')} ms; the last load:`);
      for (const e of last!.events) {
        const marker = e.start > last!.ms ? ' (after the get)' : '';
        const db = e.db.length > 40 ? `…${e.db.slice(-39)}` : e.db;
        console.log(`${fixed(e.start).padStart(8)} → ${e.end === undefined ? '     ?' : fixed(e.end).padStart(8)}  ${e.what.padEnd(14)} ${db.padEnd(40)} ${e.detail}${marker}`);
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await site.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runStartupTrace();
