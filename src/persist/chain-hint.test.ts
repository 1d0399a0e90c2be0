/**
 * The start-up hint (group-chain's ChainHint) on fake-indexeddb: a right
 * hint makes the join read everything in one round; a stale one costs only
 * wasted reads; a client keeps it up to date as it moves the group head.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PersistentDagStore } from '../dag/store';
import type { WriteTransaction } from '../db/transaction-types';
import { IDBKvProvider } from '../kv/idb-provider';
import { MemoryKvProvider } from '../kv/memory-provider';
import { openClientStore } from './client-store';
import { CHAIN_HINT_COMMITS_MAX, HINT_FIRST_READ_MAX, localStorageChainHint, readGroupChain, type ChainHint, type HintedChain } from './group-chain';
import { objectStoresWithoutGetAllRecords } from '../kv/idb-records.testing';
import { countJoinRounds, MapStorage } from './chain-hint.testing';
import { Tabs } from './testing/tabs';

const DATA = 'hint-data';
const key = (i: number) => `k/${String(i).padStart(4, '0')}`;

const mutators = {
  async fill(tx: WriteTransaction, { n, size = 400 }: { n: number; size?: number }) {
    for (let i = 0; i < n; i++) await tx.put(key(i), { i, text: 'x'.repeat(size) });
  },
  async put(tx: WriteTransaction, { k, value }: { k: string; value: number }) {
    await tx.put(k, value);
  },
};

/** A hint kept in memory (localStorage's part), with what was saved. */
function memoryHint(chain: HintedChain | undefined): ChainHint & { saved: (HintedChain | undefined)[] } {
  const saved: (HintedChain | undefined)[] = [];
  return {
    chain,
    saved,
    save: (next) => void saved.push(next),
  };
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});


/** A store of 3,000 keys (its root has more children than a join preloads) written by a tab that closed, on a fresh fake IndexedDB. */
async function storedStore() {
  const tabs = new Tabs({ frozen: true, provider: new IDBKvProvider(new IDBFactory()), dataName: DATA, logName: `${DATA}:log` });
  const writer = await tabs.open({ mutators: mutators as never });
  await writer.client.store.mutate('fill', { n: 3000 });
  await tabs.close(writer);
  return tabs;
}

/** storedStore, with the hint its first client (started without one) saved after reading the last key. */
async function storedStoreWithHint() {
  const tabs = await storedStore();
  const hint = memoryHint(undefined);
  const a = await openReader(tabs, 'a', hint);
  expect(await a.store.query((tx) => tx.get(key(2999)))).toMatchObject({ i: 2999 });
  await a.firstRead;
  await a.close();
  return { tabs, saved: hint.saved[0]! };
}

async function openReader(tabs: Tabs, id: string, chainHint: ChainHint) {
  return openClientStore({
    dataKv: await tabs.dataKv(),
    logKv: await tabs.logKv(),
    clientID: id,
    mutators: mutators as never,
    indexes: {},
    clock: () => tabs.clock.now(),
    timers: { setTimeout: () => 0, clearTimeout: () => {} },
    random: Math.random,
    logger: { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} },
    newClientGroupID: () => `group-of-${id}`,
    keepOwnSnapshot: () => false,
    onClientStateNotFound: () => {},
    chainHint,
  });
}

async function storedChain(tabs: Tabs, clientGroupID: string): Promise<HintedChain | undefined> {
  const perdag = new PersistentDagStore(await tabs.dataKv());
  try {
    return await perdag.withRead((r) => readGroupChain(r, clientGroupID));
  } finally {
    await perdag.close();
  }
}

describe('start-up hint', () => {
  it('without a hint the join reads in two rounds and saves the chain and the nodes the first read read; with it, in one, the first read reads nothing more, and nothing is saved', async () => {
    const tabs = await storedStore();
    const first = memoryHint(undefined);
    const counting = countJoinRounds(DATA);
    const a = await openReader(tabs, 'a', first);
    expect(await a.store.query((tx) => tx.get(key(2999)))).toMatchObject({ i: 2999 });
    expect(counting.rounds()).toBe(2);
    expect(counting.readsAfter()).toBeGreaterThan(0);
    await a.firstRead;
    const chain = await storedChain(tabs, a.clientGroupID);
    expect(chain).toBeDefined();
    expect(first.saved).toHaveLength(1);
    const saved = first.saved[0]!;
    expect({ ...saved, first: undefined }).toEqual({ ...chain, first: undefined });
    expect(saved.first?.length).toBeGreaterThan(0);
    await a.close();
    vi.restoreAllMocks();

    const second = memoryHint(saved);
    const counted = countJoinRounds(DATA);
    const b = await openReader(tabs, 'b', second);
    expect(await b.store.query((tx) => tx.get(key(2999)))).toMatchObject({ i: 2999 });
    expect(counted.rounds()).toBe(1);
    expect(counted.readsAfter()).toBe(0);
    await b.firstRead;
    expect(second.saved).toEqual([]);
    // Another first read reads what it needs (the hint's nodes are in memory, not in its way).
    expect(await b.store.query((tx) => tx.get(key(0)))).toMatchObject({ i: 0 });
    await b.close();
  });

  it("where object stores lack getAllRecords (Firefox, Safari), a right hint still reads in one round: the records' keys and values are asked together", async () => {
    const { tabs, saved } = await storedStoreWithHint();
    objectStoresWithoutGetAllRecords();
    const counted = countJoinRounds(DATA);
    const b = await openReader(tabs, 'b', memoryHint(saved));
    expect(await b.store.query((tx) => tx.get(key(2999)))).toMatchObject({ i: 2999 });
    expect(counted.rounds()).toBe(1);
    // The group records and the chain records: each prefix once for its keys and once for its values.
    expect([counted.asked.getAllKeys, counted.asked.getAll, counted.asked.getAllRecords]).toEqual([2, 2, undefined]);
    await b.close();
  });

  it("a hint whose first-read path goes through a child of the root is read without the root's other children; the first read then reads nothing more", async () => {
    // 10,000 × 1 KiB: three levels, a root of at most 8 children (recorded with the chain).
    const tabs = new Tabs({ frozen: true, provider: new MemoryKvProvider('hint-path'), dataName: DATA, logName: `${DATA}:log` });
    const writer = await tabs.open({ mutators: mutators as never });
    await writer.client.store.mutate('fill', { n: 10_000, size: 1024 - 40 });
    await tabs.close(writer);
    const start = async (id: string, chain: HintedChain | undefined) => {
      const hint = memoryHint(chain);
      const client = await openReader(tabs, id, hint);
      expect(await client.store.query((tx) => tx.get(key(9999)))).toMatchObject({ i: 9999 });
      await client.firstRead;
      await client.close();
      return { preloaded: client.joined.preloaded.map((c) => c.hash), saved: hint.saved };
    };
    // No hint: the top level is read with the chain; the first read reads the leaf, and the hint keeps its parent too.
    const a = await start('a', undefined);
    const top = a.saved[0]!.top!;
    expect(top.length).toBeGreaterThan(1);
    const path = a.saved[0]!.first!;
    expect(path).toHaveLength(2);
    const [parent, leaf] = path as [string, string];
    expect(top).toContain(parent);
    expect(top).not.toContain(leaf);
    // A hint naming the leaf alone (as hints saved before kept them): the top level is read, the path saved.
    const b = await start('b', { ...a.saved[0]!, first: [leaf] });
    expect(top.every((hash) => b.preloaded.includes(hash))).toBe(true);
    expect(b.saved.map((chain) => chain?.first)).toEqual([path]);
    // A hint whose path goes through the top level: the path alone is read, all the first read needs (nothing new to save).
    const c = await start('c', a.saved[0]);
    expect(c.preloaded.filter((hash) => top.includes(hash))).toEqual([parent]);
    expect(c.preloaded).toContain(leaf);
    expect(c.saved).toEqual([]);
    // After a change under that child the stored chain lists another top level: it is read whole again.
    const changer = await tabs.open({ mutators: mutators as never });
    await changer.client.store.mutate('put', { k: key(9998), value: 1 });
    await tabs.close(changer);
    const changed = await storedChain(tabs, changer.client.clientGroupID);
    const d = await start('d', { ...changed!, first: path });
    expect(changed!.top!.every((hash) => d.preloaded.includes(hash))).toBe(true);
  }, 60_000);

  it("a hint's first-read chunks that are gone or are not tree nodes are not preloaded", async () => {
    const { tabs, saved } = await storedStoreWithHint();
    const b = await openReader(tabs, 'b', memoryHint({ ...saved, first: ['gone', saved.head] }));
    expect(b.joined.firstFound).toBeUndefined();
    // The head commit is preloaded once, as a commit (with its refs: its basis and its map).
    expect(b.joined.preloaded.filter((c) => c.hash === saved.head).map((c) => c.refs.length)).toEqual([2]);
    expect(await b.store.query((tx) => tx.get(key(2999)))).toMatchObject({ i: 2999 });
    await b.close();
  });

  it('a client that moves the group head saves the new chain; a stale hint costs a round and starts from the stored head', async () => {
    const tabs = await storedStore();
    const hint = memoryHint(undefined);
    const a = await openReader(tabs, 'a', hint);
    expect(await a.store.query((tx) => tx.get(key(0)))).toMatchObject({ i: 0 });
    await a.firstRead;
    const old = hint.saved.at(-1);
    await a.store.mutate('put', { k: 'moved', value: 1 });
    expect(await a.sync()).toBe('synced');
    const moved = await storedChain(tabs, a.clientGroupID);
    expect(moved?.head).not.toBe(old?.head);
    expect({ ...hint.saved.at(-1), first: undefined }).toEqual({ ...moved, first: undefined });
    expect(hint.saved.at(-1)?.first).toEqual(old?.first);
    await a.close();

    const counting = countJoinRounds(DATA);
    const b = await openReader(tabs, 'b', memoryHint(old));
    expect(await b.store.query((tx) => tx.get('moved'))).toBe(1);
    expect(counting.rounds()).toBe(2);
    expect(b.joined.headHash).toBe(moved?.head);
    await b.close();
  });

  it('a persist that moves the group head saves the hint from the chain record it wrote: no transaction reads it back', async () => {
    const tabs = await storedStore();
    const hint = memoryHint(undefined);
    const a = await openReader(tabs, 'a', hint);
    expect(await a.store.query((tx) => tx.get(key(0)))).toMatchObject({ i: 0 });
    await a.firstRead;
    await a.store.mutate('put', { k: 'moved', value: 1 });
    const opened: IDBTransactionMode[] = [];
    const transaction = IDBDatabase.prototype.transaction;
    vi.spyOn(IDBDatabase.prototype, 'transaction').mockImplementation(function (this: IDBDatabase, ...args: Parameters<IDBDatabase['transaction']>) {
      const tx = transaction.apply(this, args);
      if (this.name === DATA) opened.push(tx.mode);
      return tx;
    });
    const saves = hint.saved.length;
    expect(await a.sync()).toBe('synced');
    vi.restoreAllMocks();
    // The store's one write, nothing else on the shared store.
    expect(opened).toEqual(['readwrite']);
    expect(hint.saved).toHaveLength(saves + 1);
    const moved = await storedChain(tabs, a.clientGroupID);
    expect(moved?.commits.length).toBeGreaterThan(1);
    expect({ ...hint.saved.at(-1), first: undefined }).toEqual({ ...moved, first: undefined });
    await a.close();
  });

  it("counts only the view's first read: chunks another reader of the same store reads meanwhile are not kept in the hint", async () => {
    const tabs = await storedStore();
    const hint = memoryHint(undefined);
    const a = await openReader(tabs, 'a', hint);
    const chain = await storedChain(tabs, a.clientGroupID);
    // Another reader of the shared store (e.g. recovery, the sync) reads chunks before the view's first read ends.
    const other = await a.perdag.withRead(async (r) => {
      const head = await r.mustGetChunk(chain!.head);
      await r.mustGetChunk(chain!.root);
      return head.hash;
    });
    expect(await a.store.query((tx) => tx.get(key(2999)))).toMatchObject({ i: 2999 });
    await a.firstRead;
    const first = hint.saved.at(-1)?.first ?? [];
    expect(first.length).toBeGreaterThan(0);
    expect(first).not.toContain(other);
    expect(first).not.toContain(chain!.root);
    await a.close();
  });
});

describe('start-up hint in localStorage', () => {
  const chainOf = (commits: number) => {
    const hashes = Array.from({ length: commits }, (_, i) => `c${i}`);
    return { head: hashes.at(-1)!, commits: hashes, root: 'r' };
  };

  it('is none where localStorage is null (storage disabled) or missing', () => {
    vi.stubGlobal('localStorage', null);
    expect(localStorageChainHint('s')).toBeUndefined();
    vi.stubGlobal('localStorage', undefined);
    expect(localStorageChainHint('s')).toBeUndefined();
  });

  it(`is read back with at most ${CHAIN_HINT_COMMITS_MAX} commits and ${HINT_FIRST_READ_MAX} first-read nodes: a longer (forged, corrupt) list is left out`, () => {
    const storage = new MapStorage();
    vi.stubGlobal('localStorage', storage);
    const first = (n: number) => Array.from({ length: n }, (_, i) => `n${i}`);
    const stored = (value: unknown) => {
      storage.setItem('roomsync-chain-hint/s', JSON.stringify(value));
      return localStorageChainHint('s')?.chain;
    };
    expect(stored({ ...chainOf(CHAIN_HINT_COMMITS_MAX), first: first(HINT_FIRST_READ_MAX) })).toEqual({
      ...chainOf(CHAIN_HINT_COMMITS_MAX),
      first: first(HINT_FIRST_READ_MAX),
    });
    expect(stored({ ...chainOf(CHAIN_HINT_COMMITS_MAX + 1), first: first(1) })).toBeUndefined();
    expect(stored({ ...chainOf(100_000) })).toBeUndefined();
    expect(stored({ ...chainOf(2), first: first(HINT_FIRST_READ_MAX + 1) })).toEqual(chainOf(2));
    // What a client saves is read back as it was.
    const hint = localStorageChainHint('t')!;
    hint.save({ ...chainOf(3), first: first(2) });
    expect(localStorageChainHint('t')?.chain).toEqual({ ...chainOf(3), first: first(2) });
    hint.save(chainOf(CHAIN_HINT_COMMITS_MAX + 1));
    expect(storage.getItem('roomsync-chain-hint/t')).toBeNull();
  });
});
