/**
 * Opening a stored local store and serving the first read costs what it
 * must (the group's records, the head's chain, the path to the key), not
 * more as the store grows: the reads are counted for a store of 100 keys and
 * one of 10,000 keys, and for a store with 1 and with 100 pending mutations.
 */
import { describe, expect, it } from 'vitest';
import { PERSIST_WAIT_MS } from '../../protocol/constants';
import type { Store } from '../db/store';
import { MemoryKvProvider } from '../kv/memory-provider';
import type { KvProvider } from '../kv/provider';
import type { KvRead, KvStore, KvWrite } from '../kv/types';
import type { WriteTransaction } from '../db/transaction-types';
import { openClientStore } from './client-store';
import { PersistentDagStore } from '../dag/store';
import { deleteGroupChain, PRELOADED_ROOT_CHILDREN_MAX, readGroupChain } from './group-chain';
import { startJoiningClientGroup } from './join-group';
import { readGroup } from './records';
import { Tabs } from './testing/tabs';

const KB = 1024;
const key = (i: number) => `k/${String(i).padStart(6, '0')}`;

const mutators = {
  async fill(tx: WriteTransaction, { n }: { n: number }) {
    for (let i = 0; i < n; i++) await tx.put(key(i), { i, text: 'x'.repeat(KB - 40) });
  },
  async put(tx: WriteTransaction, { k, value }: { k: string; value: number }) {
    await tx.put(k, value);
  },
};

/** A provider whose stores count the gets and has of every read and write transaction. */
class CountingProvider implements KvProvider {
  readonly durable = false;
  reads = 0;
  readonly #inner: KvProvider;

  constructor(inner: KvProvider) {
    this.#inner = inner;
  }

  async open(name: string): Promise<KvStore> {
    const store = await this.#inner.open(name);
    const count = <T extends KvRead>(t: T): T => {
      const get = t.get.bind(t);
      const has = t.has.bind(t);
      return Object.assign(t, {
        get: (k: string) => (this.reads++, get(k)),
        has: (k: string) => (this.reads++, has(k)),
      });
    };
    return {
      read: async () => count(await store.read()),
      write: async () => count<KvWrite>(await store.write()),
      close: () => store.close(),
      get closed() {
        return store.closed;
      },
    };
  }

  list(): Promise<readonly string[] | undefined> {
    return this.#inner.list();
  }

  drop(name: string): Promise<void> {
    return this.#inner.drop(name);
  }
}

let namespaces = 0;

/** Reads from opening a tab over a stored store (`keys` keys in one mutation, then `pending` more mutations) to its first get. */
async function readsToFirstGet(keys: number, pending: number): Promise<number> {
  const provider = new CountingProvider(new MemoryKvProvider(`start-up-${++namespaces}`));
  const tabs = new Tabs({ frozen: true, provider });
  const writer = await tabs.open({ mutators: mutators as never });
  await writer.client.store.mutate('fill', { n: keys });
  for (let i = 0; i < pending; i++) await writer.client.store.mutate('put', { k: `p/${i}`, value: i });
  await tabs.close(writer);

  provider.reads = 0;
  const reader = await tabs.open({ mutators: mutators as never });
  const value = (await reader.client.store.query((tx) => tx.get(key(keys - 1)))) as { i: number };
  const reads = provider.reads;
  expect(value.i).toBe(keys - 1);
  expect(reader.client.store.pendingMutationCount).toBe(1 + pending);
  await tabs.closeAll();
  return reads;
}

type OpenOptions = Parameters<typeof openClientStore>[0];

/** The reader tab's open in these tests: what each test varies, over the same client, mutators and a quiet logger. */
function readerOpen(o: Pick<OpenOptions, 'dataKv' | 'logKv' | 'clock' | 'timers'> & Partial<OpenOptions>): OpenOptions {
  return {
    clientID: 'reader',
    mutators: mutators as never,
    indexes: {},
    random: Math.random,
    logger: { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} },
    newClientGroupID: () => 'group-of-reader',
    keepOwnSnapshot: () => false,
    onClientStateNotFound: () => {},
    ...o,
  };
}

/** Stores where a tab crashed after logging one mutation (`logged` = 7) that it never stored: the next tab replays it. */
async function crashedTabWithALoggedPut() {
  const inner = new MemoryKvProvider(`start-up-${++namespaces}`);
  const tabs = new Tabs({ frozen: true, provider: inner });
  const crashed = await tabs.open({ mutators: mutators as never });
  await crashed.client.store.mutate('put', { k: 'logged', value: 7 });
  tabs.crash(crashed);
  return { inner, tabs, crashed };
}

describe('start-up', () => {
  it('open → first get reads no more for 10,000 keys than for 100, but for one level of the tree', async () => {
    const small = await readsToFirstGet(100, 0);
    const big = await readsToFirstGet(10_000, 0);
    // A tree node is one read (its refs follow from its data); the bigger tree is at most one
    // level deeper, and its root's children (at most PRELOADED_ROOT_CHILDREN_MAX, whatever the
    // size) are read while the client joins. Anything read per key or per leaf would be hundreds more.
    expect(big - small).toBeLessThanOrEqual(1 + PRELOADED_ROOT_CHILDREN_MAX);
    expect(small).toBeLessThanOrEqual(30);
  }, 60_000);

  it('open → first get reads each pending commit once', async () => {
    const one = await readsToFirstGet(100, 0);
    const many = await readsToFirstGet(100, 100);
    // Two reads per commit of the recorded chain (read in one round), nothing read twice.
    expect(many - one).toBeLessThanOrEqual(2 * 100);
  }, 60_000);

  it("the group's chain lists a small top level, and a client opening the store has it at hand without reading the root first", async () => {
    const provider = new MemoryKvProvider(`start-up-${++namespaces}`);
    const tabs = new Tabs({ frozen: true, provider });
    const writer = await tabs.open({ mutators: mutators as never });
    await writer.client.store.mutate('fill', { n: 10_000 });
    await tabs.close(writer);

    const reader = await tabs.open({ mutators: mutators as never });
    const read = await reader.client.perdag.read();
    try {
      const chain = await readGroupChain(read, reader.client.clientGroupID);
      const root = await read.mustGetChunk(chain!.root);
      expect(root.refs.length).toBeGreaterThan(1);
      expect(root.refs.length).toBeLessThanOrEqual(PRELOADED_ROOT_CHILDREN_MAX);
      expect(chain!.top).toEqual(root.refs);
      const preloaded = new Set(reader.client.joined.preloaded.map((c) => c.hash));
      for (const hash of [...chain!.commits, chain!.root, ...root.refs]) expect(preloaded.has(hash)).toBe(true);
    } finally {
      read.release();
    }
    await tabs.closeAll();
  }, 60_000);

  it("is readable while the joining write commits, with a crashed tab's logged mutations already in its view; open resolves after that commit", async () => {
    const { inner, tabs } = await crashedTabWithALoggedPut();

    // The data store's next commit (the join's) waits until the test lets it go.
    let letCommit!: () => void;
    const gate = new Promise<void>((resolve) => (letCommit = resolve));
    const commits: string[] = [];
    const dataKv = await inner.open('data');
    const gated: KvStore = {
      read: () => dataKv.read(),
      write: async () => {
        const w = await dataKv.write();
        const commit = w.commit.bind(w);
        return Object.assign(w, {
          commit: async () => {
            await gate;
            await commit();
            commits.push('committed');
          },
        });
      },
      close: () => dataKv.close(),
      get closed() {
        return dataKv.closed;
      },
    };
    let onReadable!: (store: Store) => void;
    const readable = new Promise<Store>((resolve) => (onReadable = resolve));
    const opening = openClientStore(
      readerOpen({
        dataKv: gated,
        logKv: await inner.open('log'),
        clock: () => tabs.clock.now(),
        timers: { setTimeout: () => 0, clearTimeout: () => {} },
        onReadable,
      }),
    );
    let opened = false;
    void opening.then(() => (opened = true));
    const store = await readable;
    expect(await store.query((tx) => tx.get('logged'))).toBe(7);
    expect(commits).toEqual([]);
    expect(opened).toBe(false);
    letCommit();
    const client = await opening;
    expect(commits).toEqual(['committed']);
    expect(client.store).toBe(store);
    expect(client.store.pendingMutationCount).toBe(1);
    await client.close();
    await tabs.closeAll();
  });

  it("a background persist that falls due while the logs are replayed waits for the open and stores them (no TypeError)", async () => {
    const inner = new MemoryKvProvider(`start-up-${++namespaces}`);
    const tabs = new Tabs({ frozen: true, provider: inner });
    // Each replay of a logged mutation runs this first: time passes while the replay goes on.
    let duringReplay: (() => Promise<void>) | undefined;
    const slowMutators = {
      async put(tx: WriteTransaction, { k, value }: { k: string; value: number }) {
        await duringReplay?.();
        await tx.put(k, value);
      },
    };
    const crashed = await tabs.open({ mutators: slowMutators as never });
    for (let i = 0; i < 5; i++) await crashed.client.store.mutate('put', { k: `logged/${i}`, value: i });
    tabs.crash(crashed);

    const clock = tabs.clock;
    let replays = 0;
    // The first replayed commit asks for a persist; by the third replay its timer has fired.
    duringReplay = async () => {
      if (++replays === 3) await clock.advance(PERSIST_WAIT_MS);
    };
    const errors: unknown[] = [];
    const client = await openClientStore(
      readerOpen({
        dataKv: await inner.open('data'),
        logKv: await inner.open('log'),
        mutators: slowMutators as never,
        clock: () => clock.now(),
        timers: { setTimeout: (f, ms) => clock.setTimeout(f, ms), clearTimeout: (h) => clock.clearTimeout(h as never) },
        logger: { error: (m, e) => errors.push([m, String(e)]), warn: () => {}, info: () => {}, debug: () => {} },
      }),
    );
    duringReplay = undefined;
    expect(replays).toBe(5);
    // The persist that fell due went on once the store was open: the replayed mutations are stored.
    await clock.advance(0);
    expect(errors).toEqual([]);
    const group = await client.perdag.withRead((r) => readGroup(r, client.clientGroupID));
    expect(group!.mutationIDs[crashed.id]).toBe(5);
    await client.close();
    await tabs.closeAll();
  });

  it("when the join's commit fails after the store became readable, open rejects with its error and closes the view, the scheduler and both stores", async () => {
    const { inner, tabs } = await crashedTabWithALoggedPut();

    // The data store's next commit (the join's) fails (e.g. over quota) when the test says so.
    let failCommit!: (error: Error) => void;
    const gate = new Promise<never>((_, reject) => (failCommit = reject));
    const dataKv = await inner.open('data');
    const failing: KvStore = {
      read: () => dataKv.read(),
      write: async () => {
        const w = await dataKv.write();
        return Object.assign(w, { commit: () => gate });
      },
      close: () => dataKv.close(),
      get closed() {
        return dataKv.closed;
      },
    };
    const logKv = await inner.open('log');
    const clock = tabs.clock;
    let onReadable!: (store: Store) => void;
    const readable = new Promise<Store>((resolve) => (onReadable = resolve));
    const opening = openClientStore(
      readerOpen({
        dataKv: failing,
        logKv,
        clock: () => clock.now(),
        timers: { setTimeout: (f, ms) => clock.setTimeout(f, ms), clearTimeout: (h) => clock.clearTimeout(h as never) },
        onReadable,
      }),
    );
    opening.catch(() => {});
    const store = await readable;
    expect(await store.query((tx) => tx.get('logged'))).toBe(7);
    // The replayed mutation asked for a persist.
    expect(clock.pendingTimers).toBe(1);
    const quota = new Error('QuotaExceededError');
    failCommit(quota);
    await expect(opening).rejects.toBe(quota);
    expect(store.closed).toBe(true);
    await expect(store.query((tx) => tx.get('logged'))).rejects.toThrow();
    expect(clock.pendingTimers).toBe(0);
    expect(dataKv.closed).toBe(true);
    expect(logKv.closed).toBe(true);
    await tabs.closeAll();
  });

  it("a join whose read of the top level fails after its commit started releases its write once that commit has ended", async () => {
    const inner = new MemoryKvProvider(`start-up-${++namespaces}`);
    const tabs = new Tabs({ frozen: true, provider: inner });
    const writer = await tabs.open({ mutators: mutators as never });
    await writer.client.store.mutate('fill', { n: 10_000 });
    await tabs.close(writer);
    // Without the chain record the join reads the root's children after its commit started.
    const dataKv = await inner.open('data');
    const plain = new PersistentDagStore(dataKv);
    const chain = await plain.withRead((r) => readGroupChain(r, `group-of-${writer.id}`));
    const top = chain!.top!;
    expect(top.length).toBeGreaterThan(1);
    await plain.withWrite(async (w) => {
      await deleteGroupChain(w, `group-of-${writer.id}`);
      await w.commit();
    });

    const events: string[] = [];
    let inCommit = false;
    const failing: KvStore = {
      read: () => dataKv.read(),
      write: async () => {
        const w = await dataKv.write();
        const get = w.get.bind(w);
        const commit = w.commit.bind(w);
        const release = w.release.bind(w);
        return Object.assign(w, {
          get: (k: string) => (top.some((hash) => k.includes(hash)) ? Promise.reject(new Error('read failed')) : get(k)),
          commit: async () => {
            events.push('commit');
            await new Promise((resolve) => setImmediate(resolve));
            // The store's commit ends by releasing the transaction itself: only the join's release is counted.
            inCommit = true;
            const applied = commit();
            inCommit = false;
            await applied;
            events.push('committed');
          },
          release: () => {
            if (!inCommit) events.push('release');
            release();
          },
        });
      },
      close: () => dataKv.close(),
      get closed() {
        return dataKv.closed;
      },
    };
    const joining = startJoiningClientGroup(new PersistentDagStore(failing), {
      clientID: 'reader',
      mutatorNames: Object.keys(mutators),
      indexes: {},
      now: tabs.clock.now(),
      newClientGroupID: () => 'group-of-reader',
    });
    await expect(joining).rejects.toThrow('read failed');
    // Released before its commit, the memory store would have undone the join's writes under it.
    expect(events).toEqual(['commit', 'committed', 'release']);
    await tabs.closeAll();
  });
});
