import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, SKIP_REASON } from './chromium';
import { serveBundle, type ServedBundle } from './serve-bundle';

type Steps = Record<string, (...args: unknown[]) => Promise<unknown>>;

describe.skipIf(!chromiumAvailable)(`storage in real Chromium${chromiumAvailable ? '' : ` (skipped: ${SKIP_REASON})`}`, () => {
  let browser: Browser;
  let served: ServedBundle;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    served = await serveBundle(resolve(import.meta.dirname, 'storage-entry.ts'));
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  /** A fresh page load, so nothing survives in memory: only what IndexedDB kept. */
  async function reload(): Promise<void> {
    await page.goto(served.url);
    await page.waitForFunction(() => 'steps' in window);
  }

  function step<T>(name: string, ...args: unknown[]): Promise<T> {
    return page.evaluate(
      ([stepName, stepArgs]) => (window as unknown as { steps: Steps }).steps[stepName as string]!(...(stepArgs as unknown[])),
      [name, args] as const,
    ) as Promise<T>;
  }

  it('keeps data and pending mutations across page loads', async () => {
    await reload();
    await step('writeMutations', 'persist-1', 300, 1000);
    await reload();
    const back = await step<{ keys: number; lastKey: string; first: { i: number }; pending: number[] }>('readBack', 'persist-1');
    expect(back.keys).toBe(300);
    expect(back.lastKey).toBe('item/00299');
    expect(back.first.i).toBe(0);
    expect(back.pending).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
  });

  it('keeps applied server state and drops acknowledged mutations across page loads', async () => {
    await reload();
    await step('writeMutations', 'persist-2', 10, 10);
    await reload();
    await step('acknowledgeSome', 'persist-2', 4);
    await reload();
    expect(await step('readServerState', 'persist-2')).toEqual({ cookie: 1, lmid: 4, pending: 6, greeting: 'hello from the server' });
    const back = await step<{ keys: number; pending: number[] }>('readBack', 'persist-2');
    expect(back.keys).toBe(10);
    expect(back.pending).toEqual([5, 6, 7, 8, 9, 10]);
  });

  it('keeps secondary indexes across page loads', async () => {
    await reload();
    await step('writeIndexed', 'indexed-1');
    await reload();
    expect(await step('readIndexed', 'indexed-1')).toEqual({
      bob: [
        ['bob', 't/1'],
        ['bob', 't/3'],
      ],
      fromCarol: [['carol', 't/4']],
    });
  });

  it('reports a database deleted under it as a typed error', async () => {
    await reload();
    const result = await step<{ error: string | null; message?: string }>('deletedUnderUs', 'deleted-1');
    expect(result.error).toBe('StoreClosedError');
  });

  it("a read made while a write commits rides on the write's transaction (from another task: at its last write's answer), answered once the commit is done; after an aborted commit, or a failed ridden request, it is asked again", async () => {
    await reload();
    expect(await step('readWhileCommitting', 'ride-1')).toEqual({
      rode: { value: 2, committed: 'ok', modes: ['readwrite'] },
      aborted: { value: 2, committed: 'AbortError', modes: ['readwrite', 'readonly'] },
      later: { answer: { value: 1999, afterCommit: true }, modes: ['readwrite'] },
      lateAbort: { seen: [1, 1], stored: [1, 1], outcome: 'committed' },
      abortInRequest: { seen: [0, 0], stored: [0, 0], outcome: 'aborted' },
      failingRide: { value: 'written', committed: 'ok' },
    });
  });

  it('a prefetch asks IndexedDB once (getAllRecords) for the keys and values under its prefix', async () => {
    await reload();
    expect(await step('prefetchOneRequest', 'prefetch-1')).toEqual({
      prefetched: ['getAllRecords'],
      values: [1, 20, 'outside'],
      asked: ['get'],
    });
  });

  it('a read asked of a closed store is refused even where a write still finishing its commit could take it', async () => {
    await reload();
    expect(await step('rideAfterClose', 'ride-2')).toEqual({ read: { error: 'StoreClosedError' }, committed: 'ok' });
  });

  it('a client keeps a start-up hint in localStorage; a stale or broken hint still starts from what is stored', async () => {
    await reload();
    const first = await step<Record<string, string>>('hintedPut', 'hint-1', 'a', 1);
    expect(Object.keys(first)).toHaveLength(1);
    const [name, old] = Object.entries(first)[0]!;
    expect(JSON.parse(old)).toMatchObject({ head: expect.any(String), commits: expect.any(Array), root: expect.any(String) });
    await reload();
    const second = await step<Record<string, string>>('hintedPut', 'hint-1', 'b', 2);
    // The put moved the group head: the hint follows it.
    expect(JSON.parse(second[name]!).head).not.toBe(JSON.parse(old).head);
    await reload();
    expect(await step('readWithHints', 'hint-1', { [name]: old }, ['a', 'b'])).toEqual([1, 2]);
    await reload();
    const broken = JSON.stringify({ head: 'gone', commits: ['gone'], root: 'gone', top: ['gone'], first: ['gone'] });
    expect(await step('readWithHints', 'hint-1', { [name]: broken }, ['a', 'b'])).toEqual([1, 2]);
    await reload();
    expect(await step('readWithHints', 'hint-1', { [name]: 'not json' }, ['a', 'b'])).toEqual([1, 2]);
  });

  it('a long offline backlog keeps its chain record in parts, and a page loaded after reads every pending mutation back', async () => {
    await reload();
    const records = await step<Record<string, { parts?: string[]; tail?: string[]; commits?: string[] }>>('offlineBacklog', 'backlog-1', 600);
    const main = Object.entries(records).filter(([k]) => !/\/\d+$/.test(k));
    expect(main).toHaveLength(1);
    const [name, record] = main[0]!;
    // 601 commits (the snapshot and 600 local ones): two parts of 256 and a tail of 89.
    expect(record.commits).toBeUndefined();
    expect(record.parts).toHaveLength(2);
    expect(record.tail).toHaveLength(89);
    expect((records[`${name}/0`] as string[]).at(-1)).toBe(record.parts![0]);
    expect(records[`${name}/1`]).toHaveLength(256);
    await reload();
    expect(await step('readBacklog', 'backlog-1')).toEqual({ values: 600, last: 599, pending: 600 });
  });

  it('falls back to memory with a warning where IndexedDB cannot be opened', async () => {
    await reload();
    await page.setContent(
      `<iframe sandbox="allow-scripts" srcdoc='<script type="module" src="${served.url}bundle.js"></script>'></iframe>`,
    );
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    await frame.waitForFunction(() => 'steps' in window);
    const result = await frame.evaluate(() => (window as unknown as { steps: Steps }).steps.fallbackWhenUnavailable!());
    expect(result).toEqual({ value: 'v', warned: true });
  });
});
