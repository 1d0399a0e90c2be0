import { afterEach, describe, expect, it } from 'vitest';
import {
  CLIENT_GC_INTERVAL_MS,
  CLIENT_MAX_INACTIVE_MS,
  HEARTBEAT_INTERVAL_MS,
  OLD_DB_CLEANUP_INITIAL_DELAY_MS,
  OLD_DB_CLEANUP_INTERVAL_MS,
  OLD_DB_CLEANUP_MAX_AGE_MS,
  OLD_DB_CLEANUP_MAX_AGE_NO_PENDING_MS,
} from '../../protocol/constants';
import { PersistentDagStore } from '../dag/store';
import { MemoryKvProvider } from '../kv/memory-provider';
import type { KvStore } from '../kv/types';
import { ClientLifecycle } from './client-lifecycle';
import { OwnLog, readLogs } from './mutation-log';
// Old-store cleanup loads it with import() once a store is old enough; loaded here, that resolves within the fake clock's turns, as in a page that has it.
import './other-stores';
import { readClient, readClients, readGroups } from './records';
import { dataStoreName } from './store-names';
import { StoreRegistry } from './store-registry';
import { Tabs, type Tab } from './testing/tabs';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;

let tabs: Tabs;
const lifecycles: ClientLifecycle[] = [];
afterEach(async () => {
  for (const l of lifecycles.splice(0)) await l.stop();
  await tabs.closeAll();
});

async function lifecycleOf(tab: Tab, lost: string[] = [], dataName = 'data', logKv?: KvStore) {
  const lifecycle = new ClientLifecycle({
    perdag: tab.client.perdag,
    logKv: logKv ?? (await tabs.logKv()),
    ...(logKv === undefined ? {} : { logInMemory: true }),
    clientID: tab.id,
    dataName,
    registry: new StoreRegistry(tabs.provider),
    provider: tabs.provider,
    now: () => tabs.clock.now(),
    timers: tabs.clock,
    logger: { error: (m, e) => tab.errors.push(`${m}: ${String(e)}`), info() {} },
    onClientStateNotFound: () => lost.push(tab.id),
  });
  lifecycles.push(lifecycle);
  return lifecycle;
}

async function records() {
  const perdag = new PersistentDagStore(await tabs.dataKv());
  return perdag.withRead(async (r) => ({ clients: await readClients(r), groups: await readGroups(r) }));
}

describe('heartbeat', () => {
  it(`is sent every ${HEARTBEAT_INTERVAL_MS / SECOND} s`, async () => {
    tabs = new Tabs({ frozen: true });
    const tab = await tabs.open();
    const start = tabs.clock.now();
    (await lifecycleOf(tab)).start();
    const beat = async () => (await records()).clients.get(tab.id)?.heartbeatTimestampMs;
    await tabs.clock.advance(HEARTBEAT_INTERVAL_MS - 1);
    expect(await beat()).toBe(start);
    await tabs.clock.advance(1);
    expect(await beat()).toBe(start + HEARTBEAT_INTERVAL_MS);
    await tabs.clock.advance(HEARTBEAT_INTERVAL_MS);
    expect(await beat()).toBe(start + 2 * HEARTBEAT_INTERVAL_MS);
  });

  it('finds out when the client record is gone and calls onClientStateNotFound', async () => {
    tabs = new Tabs({ frozen: true });
    const sleeper = await tabs.open();
    const other = await tabs.open();
    const lost: string[] = [];
    // The sleeper's tab is frozen for 8 days; the other tab collects it meanwhile.
    await tabs.clock.advance(8 * DAY);
    await (await lifecycleOf(other)).heartbeat();
    await (await lifecycleOf(other)).collectClients();
    await (await lifecycleOf(sleeper, lost)).heartbeat();
    expect(lost).toEqual([sleeper.id]);
  });
});

describe('client garbage collection', () => {
  it(`runs every ${CLIENT_GC_INTERVAL_MS / MINUTE} min and removes clients silent for more than 7 days, never the running one`, async () => {
    tabs = new Tabs({ frozen: true });
    const gone = await tabs.open();
    const borderline = await tabs.open();
    const self = await tabs.open();
    tabs.crash(gone);
    tabs.crash(borderline);
    const t0 = tabs.clock.now();
    // borderline's last heartbeat is 1 ms later than gone's.
    await tabs.clock.advance(1);
    await (await lifecycleOf(borderline)).heartbeat();
    await tabs.clock.advanceTo(t0 + CLIENT_MAX_INACTIVE_MS + 1 - CLIENT_GC_INTERVAL_MS);
    (await lifecycleOf(self)).start();
    // The first GC runs one interval after start: gone is silent for 7 days + 1 ms then, borderline for exactly 7 days.
    await tabs.clock.advance(CLIENT_GC_INTERVAL_MS - 1);
    expect([...(await records()).clients.keys()].sort()).toEqual([gone.id, borderline.id, self.id].sort());
    await tabs.clock.advance(1);
    expect([...(await records()).clients.keys()].sort()).toEqual([borderline.id, self.id].sort());
    await tabs.clock.advance(CLIENT_GC_INTERVAL_MS);
    expect([...(await records()).clients.keys()]).toEqual([self.id]);
  });

  it('keeps the running client even when its own heartbeat is old', async () => {
    tabs = new Tabs({ frozen: true });
    const self = await tabs.open();
    await tabs.clock.advance(30 * DAY);
    await (await lifecycleOf(self)).collectClients();
    expect((await records()).clients.has(self.id)).toBe(true);
  });
});

describe('client-group garbage collection', () => {
  it('removes a group no client refers to once nothing of it is left to push', async () => {
    tabs = new Tabs({ frozen: true });
    const old = await tabs.open({ mutators: {} });
    const current = await tabs.open();
    expect(current.client.clientGroupID).not.toBe(old.client.clientGroupID);
    await tabs.close(old);
    await tabs.clock.advance(8 * DAY);
    const lifecycle = await lifecycleOf(current);
    await lifecycle.heartbeat();
    await lifecycle.collectClients();
    await lifecycle.collectGroups();
    expect([...(await records()).groups.keys()]).toEqual([current.client.clientGroupID]);
  });

  it('keeps an unreferenced group with pending mutations, in its head or only in a log', async () => {
    tabs = new Tabs({ frozen: true });
    const stored = await tabs.open({ id: 'stored', mutators: { put: async () => {} } });
    await stored.client.store.mutate('put', {});
    await tabs.close(stored);
    const logged = await tabs.open({ id: 'logged', mutators: { put: async () => {}, other: async () => {} } });
    await logged.client.store.mutate('put', {});
    tabs.crash(logged);
    const current = await tabs.open();
    await tabs.clock.advance(8 * DAY);
    const lifecycle = await lifecycleOf(current);
    await lifecycle.heartbeat();
    await lifecycle.collectClients();
    await lifecycle.collectGroups();
    expect((await records()).clients.size).toBe(1);
    expect([...(await records()).groups.keys()].sort()).toEqual(['group-of-logged', 'group-of-stored', current.client.clientGroupID].sort());
    // The crashed client's log stays while its entries are stored nowhere else.
    expect((await readLogs(await tabs.logKv())).map((l) => l.clientID)).toContain('logged');
  });

  it("a client whose log lives in memory (its durable log refused) collects neither groups nor logs: a group logged only in another client's durable log stays", async () => {
    tabs = new Tabs({ frozen: true });
    const logged = await tabs.open({ id: 'logged', mutators: { put: async () => {}, other: async () => {} } });
    await logged.client.store.mutate('put', {});
    tabs.crash(logged);
    const current = await tabs.open();
    await tabs.clock.advance(8 * DAY);
    // The tab whose log database failed to open: its log is an empty memory store.
    const memoryLog = await new MemoryKvProvider(`memory-log-${current.id}-${tabs.clock.now()}`).open('log');
    const refused = await lifecycleOf(current, [], 'data', memoryLog);
    await refused.heartbeat();
    await refused.collectClients();
    await refused.collectGroups();
    // Its timers too.
    refused.start();
    await tabs.clock.advance(CLIENT_GC_INTERVAL_MS);
    expect([...(await records()).groups.keys()]).toContain('group-of-logged');
    // A tab with the durable log collects later: it keeps the log (its group holds it as unstored).
    const healthy = await lifecycleOf(await tabs.open());
    await healthy.collectClients();
    await healthy.collectGroups();
    expect([...(await records()).groups.keys()]).toContain('group-of-logged');
    expect((await readLogs(await tabs.logKv())).map((l) => l.clientID)).toContain('logged');
  });

  it(`runs every ${CLIENT_GC_INTERVAL_MS / MINUTE} min on its own`, async () => {
    tabs = new Tabs({ frozen: true });
    const old = await tabs.open({ mutators: {} });
    const current = await tabs.open();
    tabs.crash(old);
    await tabs.clock.advance(8 * DAY);
    (await lifecycleOf(current)).start();
    // Clients first (the client GC), groups at their own tick: both at 5 min.
    await tabs.clock.advance(CLIENT_GC_INTERVAL_MS);
    await tabs.clock.advance(CLIENT_GC_INTERVAL_MS);
    expect([...(await records()).groups.keys()]).toEqual([current.client.clientGroupID]);
  });
});

describe('old-database cleanup', () => {
  async function otherStore(name: string, pending = false): Promise<void> {
    const kv = await tabs.provider.open(name);
    if (pending) {
      // A format-2 store whose group holds a mutation its server never acknowledged, only in the log.
      const log = new OwnLog(await tabs.provider.open(`${name}:log`), 'c', 'g');
      await log.register();
      await log.append({ clientID: 'c', id: 1, name: 'x', args: null, timestamp: 0 });
    }
    await kv.close();
  }

  it(`runs first after ${OLD_DB_CLEANUP_INITIAL_DELAY_MS / MINUTE} min, then every ${OLD_DB_CLEANUP_INTERVAL_MS / (60 * MINUTE)} h, with the 14-day and 30-day thresholds`, async () => {
    tabs = new Tabs({ frozen: true });
    const self = await tabs.open();
    const current = dataStoreName('u', 'room', '1');
    const sameFormatOld = dataStoreName('u', 'old-room', '1');
    const withPending = dataStoreName('u', 'pending-room', '1');
    const formatOne = 'roomsync:u:legacy';
    const registry = new StoreRegistry(tabs.provider);
    const t0 = tabs.clock.now();
    await registry.touch(sameFormatOld, t0);
    await registry.touch(withPending, t0);
    for (const name of [sameFormatOld, formatOne]) await otherStore(name);
    await otherStore(withPending, true);
    (await lifecycleOf(self, [], current)).start();
    const names = async () => ((await tabs.provider.list()) ?? []).filter((n) => n.startsWith('roomsync:')).sort();

    await tabs.clock.advance(OLD_DB_CLEANUP_INITIAL_DELAY_MS - 1);
    expect(await names()).toContain(formatOne);
    await tabs.clock.advance(1);
    // First run: the format-1 store is seen for the first time; its 30 days start now.
    expect(await names()).toContain(sameFormatOld);

    await tabs.clock.advanceTo(t0 + OLD_DB_CLEANUP_MAX_AGE_NO_PENDING_MS + OLD_DB_CLEANUP_INTERVAL_MS);
    expect(await names()).not.toContain(sameFormatOld);
    expect(await names()).not.toContain(`${sameFormatOld}:log`);
    expect(await names()).toContain(withPending);
    expect(await names()).toContain(formatOne);

    await tabs.clock.advanceTo(t0 + OLD_DB_CLEANUP_INITIAL_DELAY_MS + OLD_DB_CLEANUP_MAX_AGE_MS + OLD_DB_CLEANUP_INTERVAL_MS);
    expect(await names()).not.toContain(formatOne);
    expect(await names()).toContain(withPending);
    expect(self.errors).toEqual([]);
  });

  it('keeps a store whose last use is within its threshold', async () => {
    tabs = new Tabs({ frozen: true });
    const self = await tabs.open();
    const name = dataStoreName('u', 'recent', '1');
    const registry = new StoreRegistry(tabs.provider);
    await registry.touch(name, tabs.clock.now());
    await otherStore(name);
    await tabs.clock.advance(OLD_DB_CLEANUP_MAX_AGE_NO_PENDING_MS);
    await (await lifecycleOf(self)).cleanupOldStores();
    expect((await tabs.provider.list()) ?? []).toContain(name);
    await tabs.clock.advance(1);
    await (await lifecycleOf(self)).cleanupOldStores();
    expect((await tabs.provider.list()) ?? []).not.toContain(name);
  });
});

describe('records', () => {
  it('the client record names its group and head', async () => {
    tabs = new Tabs({ frozen: true });
    const tab = await tabs.open();
    const record = await new PersistentDagStore(await tabs.dataKv()).withRead((r) => readClient(r, tab.id));
    expect(record).toMatchObject({ clientGroupID: tab.client.clientGroupID, tempRefreshHash: null, heartbeatTimestampMs: tabs.clock.now() });
  });
});
