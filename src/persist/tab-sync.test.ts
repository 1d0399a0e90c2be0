import { afterEach, describe, expect, it } from 'vitest';
import { PersistentDagStore } from '../dag/store';
import { MemoryKvProvider } from '../kv/memory-provider';
import { withWrappedWrites } from '../kv/wrapped-writes.testing';
import type { DagRead, Hash } from '../dag/types';
import type { KvRead, KvStore } from '../kv/types';
import { readCommit } from '../db/commit';
import { readChainOf } from '../db/merge-chains';
import { readClient, readGroup, writeClient } from './records';
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
  /** Chunks read from the shared store (their data, in reads and writes). */
  chunkReads = 0;
  override async open(name: string): Promise<KvStore> {
    const store = await super.open(name);
    if (name !== 'data') return store;
    const countReads = <T extends KvRead>(r: T): T => {
      const get = r.get.bind(r);
      r.get = (key: string) => {
        if (key.startsWith('c/') && key.endsWith('/d')) this.chunkReads++;
        return get(key);
      };
      return r;
    };
    const read = store.read.bind(store);
    store.read = async () => countReads(await read());
    const write = store.write.bind(store);
    store.write = async () => {
      this.writes++;
      return countReads(await write());
    };
    return store;
  }
}

/** The shared store's counts agree with its heads: each chunk reachable from `heads` is stored with the count of heads and stored chunks referring to it. */
async function expectConsistent(read: DagRead & { refCount(hash: Hash): Promise<number> }, heads: readonly (Hash | undefined)[]): Promise<void> {
  const expected = new Map<Hash, number>();
  const seen = new Set<Hash>();
  const todo: Hash[] = [];
  for (const head of heads) {
    if (head === undefined) continue;
    expected.set(head, (expected.get(head) ?? 0) + 1);
    todo.push(head);
  }
  while (todo.length > 0) {
    const hash = todo.pop()!;
    if (seen.has(hash)) continue;
    seen.add(hash);
    const chunk = await read.getChunk(hash);
    expect(chunk, `chunk ${hash} is stored`).toBeDefined();
    for (const ref of chunk!.refs) {
      expected.set(ref, (expected.get(ref) ?? 0) + 1);
      todo.push(ref);
    }
  }
  for (const [hash, count] of expected) expect(await read.refCount(hash)).toBe(count);
}

/** The heads of the clients `ids` and of the group: client, refresh, group. */
async function headsOf(read: DagRead, ids: readonly string[], clientGroupID: string): Promise<(Hash | undefined)[]> {
  const heads: (Hash | undefined)[] = [await read.getHead(`group/${clientGroupID}`)];
  for (const id of ids) heads.push(await read.getHead(`client/${id}`), await read.getHead(`refresh/${id}`));
  return heads;
}

/** A CountingProvider whose write number `failAt` (counted from its creation) fails to commit, as a crash of that write would. */
class FailingProvider extends CountingProvider {
  failAt = -1;
  override async open(name: string): Promise<KvStore> {
    const store = await super.open(name);
    if (name !== 'data') return store;
    const write = store.write.bind(store);
    store.write = async () => {
      const w = await write();
      if (this.writes !== this.failAt) return w;
      // Released without its commit: nothing of it is applied.
      w.commit = async () => {
        w.release();
        throw new Error('the write failed');
      };
      return w;
    };
    return store;
  }
}

describe('tabs of one client group', () => {
  it('a view with a long run of local commits only in memory stores them a slice per write, oldest first, then the view', async () => {
    const provider = new CountingProvider('tab-sync-store-slices');
    tabs = new Tabs({ frozen: true, provider, storeSliceCommits: 3 });
    const a = await tabs.open();
    for (let i = 0; i < 10; i++) await a.client.store.mutate('increment', { key: 'n' });
    const before = provider.writes;
    expect(await a.client.sync()).toBe('synced');
    // Locals 1–9 (below the head) in 3 slices of 3, then the view (local 10, its trees) with the group head: 4 writes.
    expect(provider.writes - before).toBe(4);
    const perdag = new PersistentDagStore(await tabs.dataKv());
    await perdag.withRead(async (r) => {
      expect((await readClient(r, a.id))?.tempRefreshHash).toBeNull();
      await expectConsistent(r, await headsOf(r, [a.id], a.client.clientGroupID));
    });
    const b = await tabs.open();
    expect(await valueOf(b, 'n')).toBe(10);
    expect(pendingOf(b)).toEqual(Array.from({ length: 10 }, (_, i) => `${a.id}:${i + 1}`));
  });

  it('once stored, the commits below the head leave memory (not kept in the cache) and are read back from the store when asked for', async () => {
    tabs = new Tabs({ frozen: true, provider: new MemoryKvProvider(`bare-${Math.random()}`), storeSliceCommits: 3 });
    const a = await tabs.open();
    for (let i = 0; i < 10; i++) await a.client.store.mutate('increment', { key: 'n' });
    const head = a.client.viewHead();
    const { memdag } = a.client;
    const below = (await memdag.withRead(async (r) => {
      const hashes: Hash[] = [];
      for (let hash = head; hashes.length < 9; ) {
        hash = ((await r.mustGetChunk(hash)).data as { basisHash: Hash }).basisHash;
        hashes.push(hash);
      }
      return hashes;
    }));
    for (const hash of [head, ...below]) expect(memdag.isMemoryOnly(hash)).toBe(true);
    expect(await a.client.sync()).toBe('synced');
    expect(memdag.memoryChunk(head)).toBeDefined();
    for (const hash of below) expect(memdag.memoryChunk(hash)).toBeUndefined();
    // Still there for a reader: loaded from the store.
    await memdag.withRead(async (r) => {
      for (const hash of below) expect((await r.mustGetChunk(hash)).data).toMatchObject({ type: 'local' });
    });
    expect(await valueOf(await tabs.open(), 'n')).toBe(10);
  });

  it('after a long stored backlog, a sync that merges a group head another tab moved reads none of the stored commits back', async () => {
    const provider = new CountingProvider(`backlog-merge-${Math.random()}`);
    tabs = new Tabs({ frozen: true, provider, storeSliceCommits: 100 });
    const a = await tabs.open();
    const backlog = Number(process.env.TAB_SYNC_BACKLOG ?? 1_000);
    for (let i = 0; i < backlog; i++) await a.client.store.mutate('increment', { key: 'n' });
    expect(await a.client.sync()).toBe('synced');
    // Another tab takes the backlog in, adds a mutation and moves the group head.
    const b = await tabs.open();
    await b.client.store.mutate('put', { key: 'b', value: 1 });
    expect(await b.client.sync()).toBe('synced');
    await a.client.store.mutate('increment', { key: 'n' });
    const before = provider.chunkReads;
    expect(await a.client.sync()).toBe('synced');
    const reads = provider.chunkReads - before;
    if (process.env.TAB_SYNC_BACKLOG !== undefined) console.log(`backlog ${backlog}: ${reads} chunk reads in the merging sync`);
    // Before, ours was read back a commit at a time (twice), one read per stored commit.
    expect(reads).toBeLessThan(50);
    expect(await valueOf(a, 'n')).toBe(backlog + 1);
    expect(await valueOf(a, 'b')).toBe(1);
    expect(pendingOf(a)).toHaveLength(backlog + 2);
    const c = await tabs.open();
    expect(await valueOf(c, 'n')).toBe(backlog + 1);
    expect(pendingOf(c)).toEqual(pendingOf(a));
  });

  it('a tab that closes with nothing of its own reads none of the chain another tab stored meanwhile, and leaves the group head as it was', async () => {
    const provider = new CountingProvider(`close-idle-${Math.random()}`);
    tabs = new Tabs({ frozen: true, provider });
    const a = await tabs.open();
    const b = await tabs.open();
    const burst = 300;
    for (let i = 0; i < burst; i++) await a.client.store.mutate('increment', { key: 'n' });
    expect(await a.client.sync()).toBe('synced');
    const group = await groupRecord(tabs, a.client.clientGroupID);
    const before = provider.chunkReads;
    await tabs.close(b);
    // Before, the close described the moved group head: a read per stored commit.
    expect(provider.chunkReads - before).toBeLessThan(10);
    expect(await groupRecord(tabs, a.client.clientGroupID)).toEqual(group);
    const c = await tabs.open();
    expect(await valueOf(c, 'n')).toBe(burst);
    expect(pendingOf(c)).toHaveLength(burst);
  });

  it('a tab that closes with nothing of its own still lets go of what its refresh head held (a refresh or a release cut short)', async () => {
    tabs = new Tabs({ frozen: true });
    const a = await tabs.open();
    const b = await tabs.open();
    for (let i = 0; i < 5; i++) await a.client.store.mutate('increment', { key: 'n' });
    expect(await a.client.sync()).toBe('synced');
    const perdag = new PersistentDagStore(await tabs.dataKv());
    const { headHash } = (await groupRecord(tabs, a.client.clientGroupID))!;
    // As a refresh that failed after protecting the group head leaves b's record.
    await perdag.withWrite(async (w) => {
      const client = (await readClient(w, b.id))!;
      await writeClient(w, b.id, { ...client, tempRefreshHash: headHash }, client);
      await w.commit();
    });
    await tabs.close(b);
    await perdag.withRead(async (r) => {
      expect((await readClient(r, b.id))?.tempRefreshHash).toBeNull();
      await expectConsistent(r, await headsOf(r, [a.id, b.id], a.client.clientGroupID));
    });
  });

  for (const [after, server] of [[0, false], [1, false], [0, true], [1, true]] as const) {
    it(`a merge over stored commits (${after} new mutation(s), ${server ? 'the other tab on a newer server state' : 'one server state'}) leaves the view's pending mutations as its chain stores them, each once`, async () => {
      tabs = new Tabs({ frozen: true, storeSliceCommits: 2 });
      const a = await tabs.open();
      for (let i = 0; i < 6; i++) await a.client.store.mutate('increment', { key: 'n' });
      expect(await a.client.sync()).toBe('synced');
      // Another tab takes the backlog in and moves the group head; then the first merges that head over its stored commits
      // (described from its database's lists), reading the other head only down to them.
      const b = await tabs.open();
      if (server) await b.client.store.applyServerUpdate({ baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'server', value: true }] });
      await b.client.store.mutate('put', { key: 'b', value: 1 });
      expect(await b.client.sync()).toBe('synced');
      for (let i = 0; i < after; i++) await a.client.store.mutate('increment', { key: 'n' });
      expect(await a.client.sync()).toBe('synced');
      // With nothing new, the view takes the group head as it is: nothing replayed (a chain that misread theirs would differ from ours and replay).
      if (after === 0) expect(a.client.viewHead()).toBe(b.client.viewHead());
      // The view's chain read commit by commit from the store (the sync stored its head).
      const stored = await new PersistentDagStore(await tabs.dataKv()).withRead(async (r) => readChainOf(r, await readCommit(r, a.client.viewHead())));
      const chainPending = stored.locals.map(({ data: d }) => ({ id: d.mutationID, clientID: d.clientID, name: d.mutatorName, args: d.mutatorArgs, timestamp: d.timestamp }));
      expect(a.client.store.pendingMutations()).toEqual(chainPending);
      const ids = Array.from({ length: 6 + after }, (_, i) => `${a.id}:${i + 1}`);
      expect([...pendingOf(a)].sort()).toEqual([...ids, `${b.id}:1`].sort());
      expect(await valueOf(a, 'n')).toBe(6 + after);
      expect(await valueOf(a, 'server')).toBe(server ? true : undefined);
    });
  }

  it('slices stopped midway leave a consistent store; a later store takes them in, even after the refresh head let go of them', async () => {
    const provider = new FailingProvider('tab-sync-store-slices-stopped');
    tabs = new Tabs({ frozen: true, provider, storeSliceCommits: 2 });
    const a = await tabs.open();
    const b = await tabs.open();
    for (let i = 0; i < 7; i++) await a.client.store.mutate('increment', { key: 'n' });
    // Slices of locals 1–2, 3–4, 5–6, then the view: the third slice fails.
    provider.failAt = provider.writes + 3;
    await expect(a.client.sync()).rejects.toThrow('the write failed');
    const perdag = new PersistentDagStore(await tabs.dataKv());
    await perdag.withRead(async (r) => {
      expect((await readClient(r, a.id))?.tempRefreshHash).not.toBeNull();
      await expectConsistent(r, await headsOf(r, [a.id, b.id], a.client.clientGroupID));
    });
    // Another tab moves the group head: a's next sync protects it (its refresh head lets go of the slices), then stores everything.
    await b.client.store.mutate('increment', { key: 'n', by: 100 });
    expect(await b.client.sync()).toBe('synced');
    expect(await a.client.sync()).toBe('synced');
    await perdag.withRead(async (r) => {
      expect((await readClient(r, a.id))?.tempRefreshHash).toBeNull();
      await expectConsistent(r, await headsOf(r, [a.id, b.id], a.client.clientGroupID));
    });
    expect(await b.client.sync()).toBe('synced');
    for (const tab of [a, b, await tabs.open()]) expect(await valueOf(tab, 'n')).toBe(107);
  });

  it('slices stopped midway: the view\'s next store leaves out none of them', async () => {
    const provider = new FailingProvider('tab-sync-store-slices-again');
    tabs = new Tabs({ frozen: true, provider, storeSliceCommits: 2 });
    const a = await tabs.open();
    for (let i = 0; i < 7; i++) await a.client.store.mutate('increment', { key: 'n' });
    // The view's own write fails, after its 3 slices.
    provider.failAt = provider.writes + 4;
    await expect(a.client.sync()).rejects.toThrow('the write failed');
    await a.client.store.mutate('increment', { key: 'n' });
    expect(await a.client.sync()).toBe('synced');
    const perdag = new PersistentDagStore(await tabs.dataKv());
    await perdag.withRead(async (r) => {
      expect((await readClient(r, a.id))?.tempRefreshHash).toBeNull();
      await expectConsistent(r, await headsOf(r, [a.id], a.client.clientGroupID));
    });
    expect(await valueOf(await tabs.open(), 'n')).toBe(8);
  });

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
    const recording = withWrappedWrites(provider, (w) => {
      const put = w.put.bind(w);
      return Object.assign(w, { put: (key: string, value: never) => (stored.push(key), put(key, value)) });
    });
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
