/**
 * Test support: clients (tabs) of one shared local store in memory, on a fake
 * clock, opened with openClientStore. Dropping a tab without close() is a crash.
 */
import { FakeClock } from '../../connection/testing/fake-clock';
import type { WriteTransaction } from '../../db/transaction-types';
import { MemoryKvProvider } from '../../kv/memory-provider';
import type { KvProvider } from '../../kv/provider';
import type { KvStore } from '../../kv/types';
import { openClientStore, type ClientStore } from '../client-store';

export const testMutators = {
  async put(tx: WriteTransaction, { key, value }: { key: string; value: unknown }) {
    await tx.put(key, value as never);
  },
  async increment(tx: WriteTransaction, { key, by = 1 }: { key: string; by?: number }) {
    await tx.put(key, (((await tx.get(key)) as number | undefined) ?? 0) + by);
  },
};

export interface Tab {
  readonly id: string;
  /** Set when the tab crashed: its timers fire no more. */
  dead: boolean;
  readonly client: ClientStore;
  readonly errors: string[];
  readonly lost: string[];
}

export interface TabsOptions {
  readonly clock?: FakeClock;
  /** @default a fresh namespace of memory stores */
  readonly provider?: KvProvider;
  /** The shared store's name and its log's. @default 'data', 'log' */
  readonly dataName?: string;
  readonly logName?: string;
  /** No background persist ever runs: only explicit syncs and closes store anything. */
  readonly frozen?: boolean;
  /** Commits of a dropped chain collected per write (small in tests, so that slices happen). */
  readonly releaseSliceCommits?: number;
  /** Local commits stored per write ahead of a long view's store (small in tests, so that slices happen). */
  readonly storeSliceCommits?: number;
}

let namespaces = 0;

/** A place (like one browser profile) where tabs open one shared store. */
export class Tabs {
  readonly provider: KvProvider;
  readonly #dataName: string;
  readonly #logName: string;
  readonly clock: FakeClock;
  readonly #frozen: boolean;
  readonly #releaseSliceCommits: number | undefined;
  readonly #storeSliceCommits: number | undefined;
  readonly #open = new Set<Tab>();
  #nextID = 1;
  #connected = new Set<string>();

  constructor(options: TabsOptions = {}) {
    this.clock = options.clock ?? new FakeClock(1_000_000);
    this.provider = options.provider ?? new MemoryKvProvider(`tabs-${++namespaces}`);
    this.#dataName = options.dataName ?? 'data';
    this.#logName = options.logName ?? 'log';
    this.#frozen = options.frozen ?? false;
    this.#releaseSliceCommits = options.releaseSliceCommits;
    this.#storeSliceCommits = options.storeSliceCommits;
  }

  /** The shared store (opened once: every tab gets a connection of its own, as tabs do). */
  dataKv(): Promise<KvStore> {
    return this.provider.open(this.#dataName);
  }

  logKv(): Promise<KvStore> {
    return this.provider.open(this.#logName);
  }

  /** Whether a tab's view follows its own socket (keeps its snapshot on refresh). */
  setConnected(tab: Tab, connected: boolean): void {
    if (connected) this.#connected.add(tab.id);
    else this.#connected.delete(tab.id);
  }

  async open(options: { mutators?: Record<string, (tx: WriteTransaction, args: never) => Promise<void>>; indexes?: Record<string, { jsonPointer: string }>; id?: string } = {}): Promise<Tab> {
    const id = options.id ?? `tab-${this.#nextID++}`;
    const errors: string[] = [];
    const lost: string[] = [];
    const clock = this.clock;
    const tab = { id, dead: false } as Tab;
    const timers = this.#frozen
      ? { setTimeout: () => 0, clearTimeout: () => {} }
      : {
          setTimeout: (callback: () => void, ms: number) => clock.setTimeout(() => void (tab.dead || callback()), ms),
          clearTimeout: (handle: unknown) => clock.clearTimeout(handle),
        };
    const client = await openClientStore({
      dataKv: await this.dataKv(),
      logKv: await this.logKv(),
      clientID: id,
      mutators: (options.mutators ?? testMutators) as never,
      indexes: options.indexes ?? {},
      clock: () => this.clock.now(),
      timers,
      random: Math.random,
      logger: { error: (m) => errors.push(m), warn: (m) => errors.push(m), info: () => {}, debug: () => {} },
      newClientGroupID: () => `group-of-${id}`,
      keepOwnSnapshot: () => this.#connected.has(id),
      onClientStateNotFound: () => lost.push(id),
      ...(this.#releaseSliceCommits === undefined ? {} : { releaseSliceCommits: this.#releaseSliceCommits }),
      ...(this.#storeSliceCommits === undefined ? {} : { storeSliceCommits: this.#storeSliceCommits }),
    });
    Object.assign(tab, { client, errors, lost });
    this.#open.add(tab);
    return tab;
  }

  async close(tab: Tab): Promise<void> {
    this.#open.delete(tab);
    await tab.client.close();
  }

  /** The tab dies without storing anything more (a crash or a killed page). */
  crash(tab: Tab): void {
    tab.dead = true;
    this.#open.delete(tab);
  }

  async closeAll(): Promise<void> {
    for (const tab of [...this.#open]) await this.close(tab);
  }
}

export async function valueOf(tab: Tab, key: string): Promise<unknown> {
  return tab.client.store.query((tx) => tx.get(key));
}
