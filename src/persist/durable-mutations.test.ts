import { afterEach, describe, expect, it } from 'vitest';
import { PERSIST_WAIT_MS } from '../../protocol/constants';
import { readLogs } from './mutation-log';
import { Tabs, valueOf } from './testing/tabs';

let tabs: Tabs;
afterEach(async () => {
  await tabs.closeAll();
});

async function loggedIDs(t: Tabs): Promise<Record<string, number[]>> {
  const logs = await readLogs(await t.logKv());
  return Object.fromEntries(logs.map((l) => [l.clientID, l.entries.map((e) => e.id)]));
}

describe('durable local mutations (write-ahead log)', () => {
  it('a tab that crashed before any persist loses nothing: the next one replays its mutations, with their client and ids', async () => {
    tabs = new Tabs({ frozen: true });
    const first = await tabs.open();
    for (let i = 1; i <= 3; i++) await first.client.store.mutate('put', { key: `k${i}`, value: i });
    await first.client.store.mutate('increment', { key: 'n' });
    tabs.crash(first);

    const second = await tabs.open();
    expect(second.client.store.pendingMutations().map((m) => [m.clientID, m.id])).toEqual([
      [first.id, 1],
      [first.id, 2],
      [first.id, 3],
      [first.id, 4],
    ]);
    expect(await valueOf(second, 'k3')).toBe(3);
    expect(await valueOf(second, 'n')).toBe(1);
    expect(second.errors).toEqual([]);
  });

  it('what a persist stored leaves the log, the replayed tab\'s entries too', async () => {
    tabs = new Tabs({ frozen: true });
    const first = await tabs.open();
    await first.client.store.mutate('put', { key: 'a', value: 1 });
    tabs.crash(first);
    const second = await tabs.open();
    await second.client.store.mutate('put', { key: 'b', value: 2 });
    expect(await loggedIDs(tabs)).toEqual({ [first.id]: [1], [second.id]: [1] });
    expect(await second.client.sync()).toBe('synced');
    expect(await loggedIDs(tabs)).toEqual({ [first.id]: [], [second.id]: [] });

    // Replayed again by nobody: a third tab finds both mutations stored, not logged.
    const third = await tabs.open();
    expect(third.client.store.pendingMutations().map((m) => m.clientID).sort()).toEqual([first.id, second.id].sort());
  });

  it('a clean close stores everything and removes the tab\'s log', async () => {
    tabs = new Tabs({ frozen: true });
    const tab = await tabs.open();
    await tab.client.store.mutate('put', { key: 'a', value: 1 });
    await tabs.close(tab);
    expect(await loggedIDs(tabs)).toEqual({});
    const next = await tabs.open();
    expect(await valueOf(next, 'a')).toBe(1);
  });

  it('a burst of mutations is persisted after the regular wait, not at once, and then leaves the log (no server needed)', async () => {
    tabs = new Tabs();
    const tab = await tabs.open();
    const burst = 1_000;
    for (let i = 0; i < burst; i++) await tab.client.store.mutate('increment', { key: 'n' });
    await tab.client.whenLogged();
    // No persist right after the burst (it would hold other tabs' opens behind its write): the log holds them.
    await tabs.clock.advance(0);
    expect((await loggedIDs(tabs))[tab.id]).toHaveLength(burst);
    await tabs.clock.advance(PERSIST_WAIT_MS);
    expect((await loggedIDs(tabs))[tab.id]).toEqual([]);
    expect(await valueOf(await tabs.open(), 'n')).toBe(burst);
  });

  it('a logged mutation whose mutator is gone stays in the log instead of being dropped', async () => {
    tabs = new Tabs({ frozen: true });
    const first = await tabs.open();
    await first.client.store.mutate('put', { key: 'a', value: 1 });
    tabs.crash(first);
    // Another build without that mutator starts a group of its own: the entry is not its to replay.
    const other = await tabs.open({ mutators: {} });
    expect(other.client.store.pendingMutationCount).toBe(0);
    expect((await loggedIDs(tabs))[first.id]).toEqual([1]);
  });

  it("a sibling's logged mutations are taken in at once, before any persist; out of order, a refresh is asked for instead", async () => {
    tabs = new Tabs();
    const a = await tabs.open();
    const b = await tabs.open();
    const c = await tabs.open();
    await a.client.store.mutate('increment', { key: 'n' });
    await a.client.store.mutate('increment', { key: 'n' });
    await a.client.whenLogged();
    await b.client.catchUp(a.id);
    expect(await valueOf(b, 'n')).toBe(2);
    expect(b.client.store.pendingMutations().map((m) => `${m.clientID}:${m.id}`)).toEqual([`${a.id}:1`, `${a.id}:2`]);

    // a stores and trims its log: its next mutation does not follow on from what c holds (nothing).
    await a.client.sync();
    await a.client.store.mutate('increment', { key: 'n' });
    await a.client.whenLogged();
    await c.client.catchUp(a.id);
    expect(await valueOf(c, 'n')).toBeUndefined();
    // The refresh merges with a group head another tab moved: its code is a lazy chunk, loaded here
    // beforehand (a real load takes real time, which the fake clock's advance does not wait for).
    await import('./tab-merge');
    // The refresh it asked for runs as soon as the spacing allows; then the log follows on.
    await tabs.clock.advance(0);
    expect(await valueOf(c, 'n')).toBe(2);
    await c.client.catchUp(a.id);
    expect(await valueOf(c, 'n')).toBe(3);
  });
});
