import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, SKIP_REASON } from './chromium';
import { startDemoServer, type DemoServer } from './demo-server';

const ARTIFACTS = resolve(import.meta.dirname, '..', 'test-artifacts');
const WAIT = { timeout: 30_000 };

describe.skipIf(!chromiumAvailable)(`the demo in real Chromium${chromiumAvailable ? '' : ` (skipped: ${SKIP_REASON})`}`, () => {
  let server: DemoServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDemoServer(), launchChromium()]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A new person: a browser context of their own (own IndexedDB), in `room`. */
  async function person(room: string, user: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 900, height: 620 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => console.error(`[${user}] page error`, error));
    await page.goto(`${server.url}/r/${room}?user=${user}`);
    await page.waitForSelector('[data-testid=connection][data-state=connected]', WAIT);
    return page;
  }

  async function add(page: Page, text: string): Promise<void> {
    await page.fill('[data-testid=new-todo]', text);
    await page.press('[data-testid=new-todo]', 'Enter');
  }

  function texts(page: Page): Promise<string[]> {
    return page.$$eval('[data-testid=todo-text]', (nodes) => nodes.map((node) => node.textContent ?? ''));
  }

  async function waitForTexts(page: Page, expected: readonly string[]): Promise<void> {
    await page.waitForFunction(
      (want) => {
        const have = [...document.querySelectorAll('[data-testid=todo-text]')].map((node) => node.textContent).sort();
        return JSON.stringify(have) === JSON.stringify([...want].sort());
      },
      expected,
      WAIT,
    );
  }

  /**
   * Waits until `count` edits are in the write-ahead log in IndexedDB — a few
   * milliseconds after they show, and long before a person could reload.
   */
  async function waitForLogged(page: Page, database: string, count: number): Promise<void> {
    await page.waitForFunction(
      async ([name, want]) => {
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const request = indexedDB.open(name as string);
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
        try {
          const keys = await new Promise<IDBValidKey[]>((resolve) => {
            const request = db.transaction('kv').objectStore('kv').getAllKeys();
            request.onsuccess = () => resolve(request.result);
          });
          // One key per logged mutation: l/<client>/<id>.
          return keys.filter((key) => /^l\/[^/]+\/\d+$/.test(String(key))).length >= (want as number);
        } finally {
          db.close();
        }
      },
      [database, count] as const,
      WAIT,
    );
  }

  async function waitForSynced(page: Page): Promise<void> {
    await page.waitForSelector('[data-testid=pending][data-count="0"]', WAIT);
  }

  it('an edit in one browser appears in the other', async () => {
    const alice = await person('two-people', 'alice');
    const bob = await person('two-people', 'bob');
    await add(alice, 'Water the plants');
    await waitForTexts(bob, ['Water the plants']);
    await add(bob, 'Fix the bike');
    await waitForTexts(alice, ['Water the plants', 'Fix the bike']);
    await bob.getByRole('checkbox', { name: /Water the plants/ }).check();
    await alice.waitForSelector('.todo.done', WAIT);

    mkdirSync(ARTIFACTS, { recursive: true });
    await waitForSynced(alice);
    await alice.screenshot({ path: join(ARTIFACTS, 'demo-two-users.png') });
    await alice.context().close();
    await bob.context().close();
  });

  /** Waits until the page lists exactly these users as present, each with its number of tabs. */
  async function waitForPresent(page: Page, expected: Readonly<Record<string, number>>): Promise<void> {
    await page.waitForFunction(
      (want) => {
        const have = Object.fromEntries([...document.querySelectorAll('[data-testid=present-user]')].map((node) => [node.getAttribute('data-user-id'), Number(node.getAttribute('data-tabs'))]));
        return JSON.stringify(Object.entries(have).sort()) === JSON.stringify(Object.entries(want).sort());
      },
      expected,
      WAIT,
    );
  }

  it('shows who is here: two browsers see each other, one entry per person however many tabs', async () => {
    const alice = await person('presence', 'alice');
    const bob = await person('presence', 'bob');
    await waitForPresent(alice, { alice: 1, bob: 1 });
    await waitForPresent(bob, { alice: 1, bob: 1 });
    expect(await alice.textContent('[data-testid=present-user][data-user-id=alice]')).toContain('alice (you)');

    const bobAgain = await bob.context().newPage();
    await bobAgain.goto(`${server.url}/r/presence?user=bob`);
    await waitForPresent(alice, { alice: 1, bob: 2 });
    await waitForPresent(bobAgain, { alice: 1, bob: 2 });
    mkdirSync(ARTIFACTS, { recursive: true });
    await alice.screenshot({ path: join(ARTIFACTS, 'demo-presence.png') });

    // A closed tab leaves after the server's grace period; its person stays, present in the other tab.
    await bobAgain.close();
    await waitForPresent(alice, { alice: 1, bob: 1 });
    await alice.context().close();
    await bob.context().close();
  });

  it('keeps offline edits across a reload and syncs them once when back online', async () => {
    const alice = await person('offline', 'alice');
    const bob = await person('offline', 'bob');
    await add(bob, 'Shared before');
    await waitForTexts(alice, ['Shared before']);

    await alice.getByTestId('offline-toggle').click();
    await alice.waitForSelector('[data-testid=connection][data-state=disconnected]', WAIT);
    for (const text of ['Offline one', 'Offline two', 'Offline three']) await add(alice, text);
    await add(bob, 'Online while alice is away');
    await alice.waitForSelector('[data-testid=pending][data-count="3"]', WAIT);
    await waitForLogged(alice, 'roomsync:alice:offline:v2:1:log', 3);

    await alice.reload();
    await alice.waitForSelector('[data-testid=pending][data-count="3"]', WAIT);
    expect(await alice.getAttribute('[data-testid=connection]', 'data-state')).toBe('disconnected');
    // Every local edit survived the reload (server data received just before it may only come back on reconnect).
    expect(await texts(alice)).toEqual(expect.arrayContaining(['Offline one', 'Offline two', 'Offline three']));

    await alice.getByTestId('offline-toggle').click();
    const all = ['Shared before', 'Offline one', 'Offline two', 'Offline three', 'Online while alice is away'];
    await waitForTexts(alice, all);
    await waitForTexts(bob, all);
    await waitForSynced(alice);
    expect(await texts(bob)).toHaveLength(all.length);
    await alice.context().close();
    await bob.context().close();
  });

  it('two tabs of one browser share one store: offline, each sees the other\'s edits; the closed one\'s are pushed once by the other; reloads keep everything', async () => {
    const context = await browser.newContext();
    const open = async () => {
      const page = await context.newPage();
      page.on('pageerror', (error) => console.error('[tess] page error', error));
      await page.goto(`${server.url}/r/tabs?user=tess`);
      await page.waitForSelector('[data-testid=connection][data-state=connected]', WAIT);
      return page;
    };
    const [first, second] = [await open(), await open()];
    await add(first, 'Online in tab one');
    await waitForTexts(second, ['Online in tab one']);
    const databases = await first.evaluate(async () => (await indexedDB.databases()).map((db) => db.name).sort());
    expect(databases).toEqual(['roomsync-stores', 'roomsync:tess:tabs:v2:1', 'roomsync:tess:tabs:v2:1:log']);

    // Both tabs offline: the server sees nothing; the tabs see each other's edits through their shared store.
    for (const page of [first, second]) {
      await page.getByTestId('offline-toggle').click();
      await page.waitForSelector('[data-testid=connection][data-state=disconnected]', WAIT);
    }
    await add(first, 'Offline in tab one');
    await add(second, 'Offline in tab two');
    const all = ['Online in tab one', 'Offline in tab one', 'Offline in tab two'];
    await waitForTexts(first, all);
    await waitForTexts(second, all);
    await first.waitForSelector('[data-testid=pending][data-count="2"]', WAIT);

    // The first tab closes; the second goes online and pushes both tabs' offline edits.
    await first.close({ runBeforeUnload: true });
    await second.getByTestId('offline-toggle').click();
    await waitForSynced(second);
    const viewer = await person('tabs', 'viewer');
    await waitForTexts(viewer, all);
    expect(await texts(viewer)).toHaveLength(all.length);

    // Reloading both keeps everything, with nothing left to push.
    await second.reload();
    const reopened = await open();
    for (const page of [second, reopened]) {
      await waitForTexts(page, all);
      await waitForSynced(page);
    }
    expect(await texts(viewer)).toHaveLength(all.length);
    await viewer.context().close();
    await context.close();
  });

  it('survives a server restart: disconnected, reconnects with back-off, converges', async () => {
    const alice = await person('restart', 'alice');
    const bob = await person('restart', 'bob');
    await add(alice, 'Before the restart');
    await waitForTexts(bob, ['Before the restart']);

    await server.stop();
    await alice.waitForSelector('[data-testid=connection][data-state=disconnected]', WAIT);
    await bob.waitForSelector('[data-testid=connection][data-state=disconnected]', WAIT);
    await add(alice, 'During the outage');
    await server.restart();

    await alice.waitForSelector('[data-testid=connection][data-state=connected]', { timeout: 90_000 });
    await bob.waitForSelector('[data-testid=connection][data-state=connected]', { timeout: 90_000 });
    await waitForTexts(bob, ['Before the restart', 'During the outage']);
    await waitForSynced(alice);
    await alice.context().close();
    await bob.context().close();
  }, 120_000);
});
