import { afterEach, describe, expect, it } from 'vitest';
import { PersistentDagStore } from '../dag/store';
import { MemoryKvProvider } from '../kv/memory-provider';
import type { KvProvider } from '../kv/provider';
import type { DagRead, Hash } from '../dag/types';
import type { KvStore } from '../kv/types';
import { readClient, readGroup } from './records';
import { Tabs, valueOf, type Tab } from './testing/tabs';

let tabs: Tabs;
afterEach(async () => {
  await tabs.closeAll();
});

const pendingOf = (tab: Tab) => tab.client.store.pendingMutations().map((m) => `${m.clientID}:${m.id}`);

async function groupRecord(t: Tabs, clientGroupID: string) {
  return new PersistentDagStore(await t.dataKv()).withRead((r) => readGroup(r, clientGroupID));
}

/** Every chunk reachable from `root` in the shared store. */
async function reachable(read: DagRead, root: Hash): Promise<Set<Hash>> {
  const seen = new Set<Hash>([root]);
  const todo = [root];
  while (todo.length > 0) {
    const chunk = await read.getChunk(todo.pop()!);
    for (const ref of chunk?.refs ?? []) {
      if (seen.has(ref)) continue;
      seen.add(ref);
      todo.push(ref);
    }
  }
  return seen;
}

/** Memory stores whose writes to the shared store ('data', not the log) are counted. */
class CountingProvider extends MemoryKvProvider {
  writes = 0;
  override async open(name: string): Promise<KvStore> {
    const store = await super.open(name);
    if (name !== 'data') return store;
    const write = store.write.bind(store);
    store.write = () => {
      this.writes++;
      return write();
    };
    return store;
  }
}

describe('tabs of one client group', () => {
  it('a long chain the group head leaves is collected a slice of commits per write, all of it, and nothing the new head needs', async () => {
    const provider = new CountingProvider('tab-sync-slices');
    tabs = new Tabs({ frozen: true, provider, releaseSliceCommits: 3 });
    const a = await tabs.open();
    for (let i = 0; i < 10; i++) await a.client.store.mutate('increment', { key: 'n' });
    expect(await a.client.sync()).toBe('synced');
    const perdag = new PersistentDagStore(await tabs.dataKv());
    const oldHead = (await perdag.withRead((r) => readGroup(r, a.client.clientGroupID)))!.headHash;
    const oldChunks = await perdag.withRead((r) => reachable(r, oldHead));

    await a.client.store.applyServerUpdate({ baseCookie: null, cookie: 1, lastMutationIDChanges: { [a.id]: 10 }, patch: [{ op: 'put', key: 'n', value: 10 }] });
    const before = provider.writes;
    expect(await a.client.sync()).toBe('synced');
    // One store, then the refresh head steps down 11 commits (snapshot and 10 locals) 3 at a time, then goes: 4 writes more.
    expect(provider.writes - before).toBe(5);

    await perdag.withRead(async (r) => {
      const newHead = (await readGroup(r, a.client.clientGroupID))!.headHash;
      const kept = await reachable(r, newHead);
      for (const hash of oldChunks) expect(await r.hasChunk(hash)).toBe(kept.has(hash));
      for (const hash of kept) expect(await r.hasChunk(hash)).toBe(true);
      expect((await readClient(r, a.id))?.tempRefreshHash).toBeNull();
      expect(await r.getHead(`refresh/${a.id}`)).toBeUndefined();
    });
    expect(await valueOf(a, 'n')).toBe(10);
    expect(pendingOf(a)).toEqual([]);
    const b = await tabs.open();
    expect(await valueOf(b, 'n')).toBe(10);
  });

  it('two tabs of one user and room join one group; what one stores, the other takes in at its next sync', async () => {
    tabs = new Tabs({ frozen: true });
    const a = await tabs.open();
    const b = await tabs.open();
    expect(b.client.clientGroupID).toBe(a.client.clientGroupID);
    expect(b.client.joined.how).toBe('joined');

    await a.client.store.mutate('put', { key: 'from-a', value: 1 });
    expect(await a.client.sync()).toBe('synced');
    const seen: unknown[] = [];
    b.client.store.subscribe((tx) => tx.get('from-a'), { onData: (v) => seen.push(v) });
    expect(await b.client.sync()).toBe('synced');
    expect(await valueOf(b, 'from-a')).toBe(1);
    expect(pendingOf(b)).toEqual([`${a.id}:1`]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([undefined, 1]);
  });

  it('offline edits of both tabs end up in both, each once, each client in id order', async () => {
    tabs = new Tabs({ frozen: true });
    const a = await tabs.open();
    const b = await tabs.open();
    for (let i = 0; i < 3; i++) {
      await a.client.store.mutate('increment', { key: 'n' });
      await b.client.store.mutate('increment', { key: 'n', by: 10 });
    }
    await a.client.sync();
    await b.client.sync();
    await a.client.sync();
    for (const tab of [a, b]) {
      expect(await valueOf(tab, 'n')).toBe(33);
      const pending = pendingOf(tab);
      expect(pending.filter((p) => p.startsWith(a.id))).toEqual([`${a.id}:1`, `${a.id}:2`, `${a.id}:3`]);
      expect(pending.filter((p) => p.startsWith(b.id))).toEqual([`${b.id}:1`, `${b.id}:2`, `${b.id}:3`]);
    }
    const group = await groupRecord(tabs, a.client.clientGroupID);
    expect(group?.mutationIDs).toEqual({ [a.id]: 3, [b.id]: 3 });
    expect(group?.lastServerAckdMutationIDs).toEqual({});
  });

  it('a server update in one tab reaches the other, and acknowledges its mutations there too', async () => {
    tabs = new Tabs({ frozen: true });
    const a = await tabs.open();
    const b = await tabs.open();
    await b.client.store.mutate('put', { key: 'mine', value: 'b' });
    await b.client.sync();
    await a.client.sync();
    await a.client.store.applyServerUpdate({
      baseCookie: null,
      cookie: 1,
      lastMutationIDChanges: { [b.id]: 1 },
      patch: [
        { op: 'put', key: 'mine', value: 'b' },
        { op: 'put', key: 'server', value: true },
      ],
    });
    await a.client.sync();
    await b.client.sync();
    expect(b.client.store.cookie).toBe(1);
    expect(pendingOf(b)).toEqual([]);
    expect(await valueOf(b, 'server')).toBe(true);
    const group = await groupRecord(tabs, a.client.clientGroupID);
    expect(group?.lastServerAckdMutationIDs).toEqual({ [b.id]: 1 });
  });

  it('a tab that follows its own socket keeps its snapshot and rebases the other tab\'s mutations onto it; the group keeps the newer one', async () => {
    tabs = new Tabs({ frozen: true });
    const a = await tabs.open();
    const b = await tabs.open();
    tabs.setConnected(b, true);
    await a.client.store.applyServerUpdate({ baseCookie: null, cookie: 5, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 's', value: 5 }] });
    await a.client.store.mutate('increment', { key: 'n' });
    await a.client.sync();
    await b.client.store.mutate('increment', { key: 'n', by: 10 });
    await b.client.sync();
    // b stays at its cookie (its socket's next poke starts from it) but has a's mutation.
    expect(b.client.store.cookie).toBe(null);
    expect(await valueOf(b, 'n')).toBe(11);
    expect(await valueOf(b, 's')).toBeUndefined();
    // The group head went forward, not back: a sees b's mutation on top of cookie 5.
    await a.client.sync();
    expect(a.client.store.cookie).toBe(5);
    expect(await valueOf(a, 'n')).toBe(11);
    expect(await valueOf(a, 's')).toBe(5);
  });

  it('tabs at the same server state stop storing once one of them stored it', async () => {
    tabs = new Tabs({ frozen: true });
    const a = await tabs.open();
    const b = await tabs.open();
    const update = { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [{ op: 'put' as const, key: 'x', value: 1 }] };
    await a.client.store.applyServerUpdate(update);
    await b.client.store.applyServerUpdate(update);
    await a.client.sync();
    const stored = (await groupRecord(tabs, a.client.clientGroupID))?.headHash;
    await b.client.sync();
    await a.client.sync();
    await b.client.sync();
    expect((await groupRecord(tabs, a.client.clientGroupID))?.headHash).toBe(stored);
  });

  it('a sync that starts while a server update rebases the view stores a whole state, whenever it starts (alone and merging another tab)', async () => {
    const update = { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [{ op: 'put' as const, key: 's', value: 1 }] };
    for (const withSibling of [false, true]) {
      for (let ticks = 0; ticks < 60; ticks++) {
        tabs = new Tabs({ frozen: true });
        const a = await tabs.open();
        const b = await tabs.open();
        await a.client.sync();
        for (let i = 0; i < 10; i++) await a.client.store.mutate('put', { key: `a${i}`, value: i });
        if (withSibling) {
          await b.client.store.mutate('put', { key: 'b', value: 1 });
          await b.client.sync();
        }
        const applied = a.client.store.applyServerUpdate(update);
        for (let i = 0; i < ticks; i++) await Promise.resolve();
        expect(await a.client.sync()).toBe('synced');
        await applied;
        expect(await a.client.sync()).toBe('synced');
        const c = await tabs.open();
        expect(await valueOf(c, 'a9')).toBe(9);
        expect(await valueOf(c, 's')).toBe(1);
        if (withSibling) expect(await valueOf(c, 'b')).toBe(1);
        expect(a.errors).toEqual([]);
        await tabs.closeAll();
      }
    }
  });

  it('a stored chain keeps the trees of its head only: the commits below it are stored without theirs', async () => {
    const stored: string[] = [];
    const provider = new MemoryKvProvider(`thin-${Math.random()}`);
    const recording: KvProvider = {
      durable: false,
      list: () => provider.list(),
      drop: (name) => provider.drop(name),
      async open(name) {
        const kv = await provider.open(name);
        return {
          read: () => kv.read(),
          write: async () => {
            const w = await kv.write();
            const put = w.put.bind(w);
            return Object.assign(w, { put: (key: string, value: never) => (stored.push(key), put(key, value)) });
          },
          close: () => kv.close(),
          get closed() {
            return kv.closed;
          },
        };
      },
    };
    tabs = new Tabs({ frozen: true, provider: recording });
    const a = await tabs.open();
    const MUTATIONS = 50;
    // Each mutation rewrites a leaf of about 8 KiB: stored with every commit, that would be a leaf per commit.
    for (let i = 0; i < MUTATIONS; i++) await a.client.store.mutate('put', { key: `k${String(i).padStart(3, '0')}`, value: 'x'.repeat(1000) });
    stored.length = 0;
    expect(await a.client.sync()).toBe('synced');
    const chunks = stored.filter((key) => /^c\/[^/]+\/d$/.test(key)).length;
    expect(chunks).toBeLessThanOrEqual(MUTATIONS + 10);
    const b = await tabs.open();
    for (let i = 0; i < MUTATIONS; i += 7) expect(await valueOf(b, `k${String(i).padStart(3, '0')}`)).toBe('x'.repeat(1000));
    await b.client.store.mutate('put', { key: 'from-b', value: 1 });
    await b.client.sync();
    await a.client.sync();
    expect(await valueOf(a, 'from-b')).toBe(1);
    expect(pendingOf(a)).toHaveLength(MUTATIONS + 1);
  });

  it('a tab whose client record is gone learns it at its next sync', async () => {
    tabs = new Tabs({ frozen: true });
    const a = await tabs.open();
    const w = await new PersistentDagStore(await tabs.dataKv()).write();
    const { deleteClient } = await import('./records');
    await deleteClient(w, a.id);
    await w.commit();
    expect(await a.client.sync()).toBe('client-state-not-found');
    expect(a.lost).toEqual([a.id]);
  });
});
