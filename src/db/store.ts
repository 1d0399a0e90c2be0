/**
 * The local store: what the client wires to its connection.
 *
 * Everything lives in the dag over the kv store: commits are chunks, each
 * pointing at its base; a snapshot commit holds the last server state (cookie,
 * acknowledged mutation ids per client, data and index trees), local commits
 * on top of it are the pending mutations. The head 'main' is the local view.
 * A memory layer (LazyDagStore) takes every commit and is persisted in the
 * background by the persist scheduler, and on close().
 *
 * Wiring: `mutate` commits locally, fires subscriptions and calls
 * `onLocalMutation` (push `pendingMutations()`); a poke or pull answer goes to
 * `applyServerUpdate` (UnexpectedBaseCookieError means: reconnect with
 * `cookie`); the connect URL takes `cookie` and `lastMutationID`.
 */
import type { ReadonlyJSONValue } from '../../protocol/json';
import { readBTree, writeBTree } from '../btree/btree';
import { compareUTF8 } from '../btree/compare';
import { newHashFactory } from '../dag/hash';
import { LazyDagStore } from '../dag/lazy-store';
import { PersistScheduler, type SchedulerTimers } from '../dag/persist-scheduler';
import { PersistentDagStore } from '../dag/store';
import { openStore } from '../kv/idb-store';
import type { KvStore } from '../kv/types';
import { applyServerUpdate } from '../sync/apply-server-update';
import type { PendingMutation, ServerUpdate } from '../sync/server-update';
import { Database } from './database';
import type { IndexDefinitions } from './index-definition';
import type { StoreLogger } from './logger';
import { defaultClock, defaultLogger, defaultRandom, defaultTimers } from './store-defaults';
import type { SubscribeOptions } from './subscriptions';
import type { IndexKey, MutatorDefs, ReadTransaction } from './transaction-types';
import type { WatchCallback, WatchIndexOptions, WatchNoIndexOptions, WatchOptions } from './watch';

export interface CreateStoreOptions {
  /** Where the data lives. When absent, the IndexedDB database `name` is opened. */
  kvStore?: KvStore;
  /** The IndexedDB database name (required without `kvStore`). */
  name?: string;
  /** The IndexedDB to use with `name`. @default globalThis.indexedDB */
  idbFactory?: IDBFactory;
  clientID: string;
  /** @default {} */
  mutators?: MutatorDefs;
  /** Secondary indexes by name. @default {} */
  indexes?: IndexDefinitions;
  /** Timestamps of mutations, persist spacing. @default Date.now */
  clock?: () => number;
  /** Timers of the background persist. @default the global setTimeout/clearTimeout */
  timers?: SchedulerTimers;
  /** Random source for chunk hashes. @default Math.random */
  random?: () => number;
  /** @default console */
  logger?: StoreLogger;
  /** Called after each local mutation is committed (the pusher listens). */
  onLocalMutation?: (mutation: PendingMutation) => void;
  /** The head holding this store's local view. @default 'main' */
  headName?: string;
}

/** The local store the client wires to its connection. */
export interface Store {
  readonly clientID: string;
  mutate<R = unknown>(name: string, args?: unknown): Promise<R>;
  query<R>(body: (tx: ReadTransaction) => Promise<R> | R): Promise<R>;
  subscribe<R>(body: (tx: ReadTransaction) => Promise<R> | R, options: SubscribeOptions<R>): () => void;
  /** Calls back with the changes of every commit under the prefix (never an empty diff). */
  experimentalWatch(callback: WatchCallback<string>, options?: WatchNoIndexOptions): () => void;
  experimentalWatch(callback: WatchCallback<IndexKey>, options: WatchIndexOptions): () => void;
  experimentalWatch(callback: WatchCallback, options?: WatchOptions): () => void;
  applyServerUpdate(update: ServerUpdate): Promise<void>;
  /** Mutations the server has not acknowledged, in order. */
  pendingMutations(): PendingMutation[];
  /** How many there are, without copying them. */
  readonly pendingMutationCount: number;
  /** The same list without a copy: read it at once (the next mutation or server update changes it); never keep or change it. */
  pendingMutationList(): readonly PendingMutation[];
  /** The last mutation id of a client this state holds (acknowledged or pending); 0 when none. */
  lastKnownMutationID(clientID: string): number;
  /**
   * Applies a mutation recorded elsewhere (a write-ahead log) with its own
   * client, id and timestamp, unless already held; ids must follow on.
   * Resolves to whether it was applied.
   */
  replayMutation(mutation: PendingMutation): Promise<boolean>;
  /** The cookie of the last applied server state; null before any. */
  readonly cookie: ReadonlyJSONValue;
  /** The last mutation id of this client the server acknowledged (the connect URL's lmid). */
  readonly lastMutationID: number;
  /** Writes what is only in memory to the kv store now. */
  persist(): Promise<void>;
  /** Persists, ends subscriptions and closes the kv store. */
  close(): Promise<void>;
  readonly closed: boolean;
}

export async function createStore(options: CreateStoreOptions): Promise<Store> {
  const logger = options.logger ?? defaultLogger;
  const clock = options.clock ?? defaultClock;
  const kv =
    options.kvStore ?? (await openStore(options.name ?? '', { logger, ...(options.idbFactory ? { idbFactory: options.idbFactory } : {}) }));
  const createHash = newHashFactory(options.random ?? defaultRandom);
  const lazy = new LazyDagStore(new PersistentDagStore(kv, { createHash }), {
    createHash,
  });
  const scheduler = new PersistScheduler(() => lazy.persist(), {
    timers: options.timers ?? defaultTimers,
    clock: { now: clock },
    onError: (e) => logger.error('Background persist failed', e),
  });
  lazy.schedulePersists(scheduler);
  const db = await Database.open({
    dag: lazy,
    clientID: options.clientID,
    mutators: options.mutators ?? {},
    indexes: options.indexes,
    clock,
    logger,
    compare: compareUTF8,
    readTree: readBTree,
    writeTree: writeBTree,
    headName: options.headName,
    onLocalMutation: options.onLocalMutation,
  });
  return new StoreImpl(db, lazy, scheduler);
}

/**
 * The Store facade over parts assembled elsewhere (the multi-tab client store
 * in persist/): `scheduler` runs its persist, and `close()` closes `dag`.
 */
export function storeOver(db: Database, dag: LazyDagStore, scheduler: PersistScheduler): Store {
  return new StoreImpl(db, dag, scheduler);
}

class StoreImpl implements Store {
  constructor(
    private readonly db: Database,
    private readonly dag: LazyDagStore,
    private readonly scheduler: PersistScheduler,
  ) {}

  get clientID(): string {
    return this.db.clientID;
  }

  mutate<R = unknown>(name: string, args?: unknown): Promise<R> {
    return this.db.mutate(name, args) as Promise<R>;
  }

  query<R>(body: (tx: ReadTransaction) => Promise<R> | R): Promise<R> {
    return this.db.query(body);
  }

  subscribe<R>(body: (tx: ReadTransaction) => Promise<R> | R, options: SubscribeOptions<R>): () => void {
    return this.db.subscribe(body, options);
  }

  experimentalWatch(callback: WatchCallback<string>, options?: WatchNoIndexOptions): () => void;
  experimentalWatch(callback: WatchCallback<IndexKey>, options: WatchIndexOptions): () => void;
  experimentalWatch(callback: WatchCallback, options?: WatchOptions): () => void;
  experimentalWatch(callback: WatchCallback<never>, options?: WatchOptions): () => void {
    return this.db.experimentalWatch(callback as WatchCallback, options);
  }

  applyServerUpdate(update: ServerUpdate): Promise<void> {
    return applyServerUpdate(this.db, update);
  }

  pendingMutations(): PendingMutation[] {
    return this.db.pendingMutations();
  }

  get pendingMutationCount(): number {
    return this.db.pendingMutationCount;
  }

  pendingMutationList(): readonly PendingMutation[] {
    return this.db.pendingMutationList();
  }

  lastKnownMutationID(clientID: string): number {
    return this.db.lastKnownMutationID(clientID);
  }

  replayMutation(mutation: PendingMutation): Promise<boolean> {
    return this.db.replayMutation(mutation);
  }

  get cookie(): ReadonlyJSONValue {
    return this.db.cookie;
  }

  get lastMutationID(): number {
    return this.db.lastMutationID;
  }

  get closed(): boolean {
    return this.db.isClosed;
  }

  persist(): Promise<void> {
    return this.scheduler.flush();
  }

  async close(): Promise<void> {
    if (this.db.isClosed) return;
    await this.db.close();
    try {
      await this.scheduler.flush();
    } finally {
      this.scheduler.close();
      await this.dag.close();
    }
  }
}
