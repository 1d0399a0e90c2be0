/**
 * The public client: the local store and the connection, glued together.
 * Platform defaults come from connection/default-environment (the edge).
 */
import type { ReadonlyJSONValue } from '../protocol/json';
import type { AuthOption } from './connection/auth';
import { Connection, type UpdateNeededReason } from './connection/connection';
import { defaultEnvironment, reloadPage } from './connection/default-environment';
import type { ConnectionEnvironment } from './connection/environment';
import { randomUUID } from './connection/random-id';
import type { ConnectionState } from './connection/state';
import { LocalMutationSignal, StoreSyncTarget } from './connection/store-sync-target';
import type { IndexDefinitions } from './db/index-definition';
import type { StoreLogger } from './db/logger';
import { createStore, type Store } from './db/store';
import type { SubscribeOptions } from './db/subscriptions';
import type { MutatorDefs, ReadTransaction, WriteTransaction } from './db/transaction-types';
import type { WatchCallback, WatchOptions } from './db/watch';
import { openStore } from './kv/idb-store';
import type { KvStore } from './kv/types';
import type { KvProvider } from './kv/provider';
import { createConsoleSink } from './logging/console-sink';
import type { LogLevel, LogSink } from './logging/log-sink';
import { Logger } from './logging/logger';
import type { Metrics } from './metrics/metrics';
import { disableClientGroup, resolveClientGroup } from './persist/client-group';
import { DurableMutations } from './persist/durable-mutations';
import { acquireStoreSlot, sessionSlotMemory, type LockManagerLike } from './persist/store-slot';
import { MemoryStore } from './kv/memory-store';

export interface ReflectOptions<MD extends MutatorDefs> {
  /** The signed-in user; part of the local store name. Must not be empty. */
  readonly userID: string;
  /** The room to sync. */
  readonly roomID: string;
  /** The sync server, `ws://` or `wss://`; null keeps the client local-only (no socket). */
  readonly socketOrigin: string | null;
  /** The auth token, or a function returning one (called again after an auth error). @default undefined */
  readonly auth?: AuthOption;
  /** Sent with every push. @default '' */
  readonly schemaVersion?: string;
  /** The mutators, by name: `r.mutate.<name>(args)`. @default {} */
  readonly mutators?: MD;
  /** Secondary indexes of the local store. @default {} */
  readonly indexes?: IndexDefinitions;
  /** @default 'error' */
  readonly logLevel?: LogLevel;
  /** @default [a console sink] */
  readonly logSinks?: readonly LogSink[];
  /** @default metrics that go nowhere */
  readonly metrics?: Metrics;
  /** Called when `online` changes. */
  readonly onOnlineChange?: (online: boolean) => void;
  /** The server needs a newer client. @default reloads the page */
  readonly onUpdateNeeded?: (reason: UpdateNeededReason) => void;
  /** The server or the local store lost this client's state. @default reloads the page */
  readonly onClientStateNotFound?: () => void;
  /** Replaces parts of the platform (socket constructor, clock, timers, random, visibility, network). For tests and Node. */
  readonly environment?: Partial<ConnectionEnvironment>;
  /** Keep the data in this kv store, or in the stores of this provider, instead of IndexedDB. */
  readonly kvStore?: KvStore | KvProvider;
  /** The IndexedDB to open the local store in. @default globalThis.indexedDB */
  readonly idbFactory?: IDBFactory;
  /**
   * Web Locks that give each page its own slot of the local store, so two tabs
   * never write one store at once (see persist/store-slot.ts). null: no locking.
   * @default globalThis.navigator.locks
   */
  readonly storeLocks?: LockManagerLike | null;
}

/** `r.mutate.name(args)`: the mutator's args, and a promise of what it returns. */
export type MakeMutator<F> = F extends (tx: WriteTransaction, ...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
export type MakeMutators<MD extends MutatorDefs> = { readonly [K in keyof MD]: MakeMutator<MD[K]> };

/** What `useConnectionStatus` shows. */
export interface ConnectionStatus {
  readonly state: 'disconnected' | 'connecting' | 'connected';
  readonly reason?: string;
  readonly nextRetryAt?: number;
  readonly online: boolean;
}

const STORE_NAME_PREFIX = 'roomsync';

/** The local store name of a user in a room. */
export function storeName(userID: string, roomID: string): string {
  return `${STORE_NAME_PREFIX}:${encodeURIComponent(userID)}:${encodeURIComponent(roomID)}`;
}

export class Reflect<MD extends MutatorDefs = MutatorDefs> {
  readonly userID: string;
  readonly roomID: string;
  readonly clientID: string;
  /**
   * The client group this client belongs to: shared by every page load of the
   * same store (user, room, mutators, indexes), so mutations left pending by an
   * earlier page load are pushed by the next. Known once the local store is open.
   */
  readonly clientGroupID: Promise<string>;
  readonly idbName: string;
  readonly schemaVersion: string;
  readonly mutate: MakeMutators<MD>;

  readonly #options: ReflectOptions<MD>;
  readonly #logger: Logger;
  readonly #ready: Promise<Store>;
  readonly #statusListeners = new Set<(status: ConnectionStatus) => void>();
  readonly #pendingListeners = new Set<(count: number) => void>();
  #store: Store | undefined;
  #connection: Connection | undefined;
  #closed = false;
  #offline = false;
  #status: ConnectionStatus = { state: 'disconnected', online: false };
  #pendingCount = 0;
  #stopPersistOnHide: (() => void) | undefined;
  #clientGroupID: string | undefined;
  #releaseSlot: (() => void) | undefined;
  #closeLogStore: (() => Promise<void>) | undefined;

  constructor(options: ReflectOptions<MD>) {
    if (typeof options.userID !== 'string' || options.userID === '') {
      throw new Error('ReflectOptions.userID must not be empty.');
    }
    const { socketOrigin } = options;
    if (socketOrigin !== null && !/^wss?:\/\//.test(String(socketOrigin))) {
      throw new Error("ReflectOptions.socketOrigin must use the 'ws' or 'wss' scheme.");
    }
    this.#options = options;
    this.userID = options.userID;
    this.roomID = options.roomID;
    this.schemaVersion = options.schemaVersion ?? '';
    this.idbName = storeName(options.userID, options.roomID);
    const environment = defaultEnvironment(options.environment);
    this.clientID = randomUUID(environment.random);
    this.#logger = new Logger(options.logLevel ?? 'error', options.logSinks ?? [createConsoleSink()], {
      roomID: options.roomID,
      clientID: this.clientID,
    });
    this.mutate = this.#makeMutators();
    this.#ready = this.#open(environment);
    this.#ready.catch((error: unknown) => this.#logger.error?.('Could not open the local store', error));
    this.clientGroupID = this.#ready.then(() => this.#clientGroupID!);
  }

  /** True after a successful connect, false after a failure (always false without a socketOrigin). */
  get online(): boolean {
    return this.#connection?.online ?? false;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get connectionStatus(): ConnectionStatus {
    return this.#status;
  }

  onConnectionStatusChange(listener: (status: ConnectionStatus) => void): () => void {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  }

  /** Local mutations the server has not acknowledged yet. */
  get pendingMutationCount(): number {
    return this.#pendingCount;
  }

  onPendingMutationCountChange(listener: (count: number) => void): () => void {
    this.#pendingListeners.add(listener);
    return () => this.#pendingListeners.delete(listener);
  }

  /** Connects now: skips a back-off wait, resumes after disconnect() or the re-authentication limit. */
  reconnect(): void {
    this.#offline = false;
    this.#connection?.reconnect();
  }

  /** Goes offline: closes the socket and stays disconnected until reconnect(). Mutations keep working locally. */
  disconnect(): void {
    this.#offline = true;
    this.#connection?.disconnect();
  }

  async query<R>(body: (tx: ReadTransaction) => Promise<R> | R): Promise<R> {
    return (await this.#ready).query(body);
  }

  /** Calls `onData` with `body`'s result now and whenever it changes. Returns the unsubscribe function. */
  subscribe<R>(body: (tx: ReadTransaction) => Promise<R> | R, options: SubscribeOptions<R> | ((result: R) => void)): () => void {
    const subscribeOptions = typeof options === 'function' ? { onData: options } : options;
    return this.#whenOpen(
      (store) => store.subscribe(body, subscribeOptions),
      (error) => subscribeOptions.onError?.(error),
    );
  }

  /** Calls `callback` with the diff of every change under `options.prefix`. Returns the unsubscribe function. */
  experimentalWatch(callback: WatchCallback, options?: WatchOptions): () => void {
    return this.#whenOpen(
      (store) => store.experimentalWatch(callback, options),
      (error) => this.#logger.error?.('experimentalWatch failed', error),
    );
  }

  /** Closes the socket and the local store (after writing it out). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#connection?.close();
    let store: Store;
    try {
      store = await this.#ready;
    } catch {
      return;
    }
    this.#connection?.close();
    this.#stopPersistOnHide?.();
    await store.close();
    await this.#closeLogStore?.();
    this.#releaseSlot?.();
    await this.#logger.flush();
  }

  /**
   * The IndexedDB stores of the first free slot: the data, and the write-ahead
   * log beside it (a database of its own, so an append never waits behind a
   * persist). In memory when no slot can be had.
   */
  async #openLocalStores(): Promise<{ kvStore: KvStore; logStore: KvStore; exclusive: boolean }> {
    const options = this.#options;
    const locks = storeLocksOf(options.storeLocks);
    const slot = await acquireStoreSlot(this.idbName, locks, sessionSlotMemory());
    if (slot === undefined) {
      this.#logger.error?.(`Every local store slot of ${this.idbName} is in use by other pages; this page keeps its data in memory only`);
      const memory = new MemoryStore(`${this.idbName}#${this.clientID}`);
      return { kvStore: memory, logStore: memory, exclusive: false };
    }
    this.#releaseSlot = slot.release;
    const open = (name: string) =>
      openStore(name, {
        logger: { warn: (message, ...details) => this.#logger.error?.(message, ...details) },
        ...(options.idbFactory === undefined ? {} : { idbFactory: options.idbFactory }),
      });
    const [kvStore, logStore] = await Promise.all([open(slot.name), open(`${slot.name}:log`)]);
    // Exclusive only when the slot is really held (Web Locks): then no other page appends to this log.
    return { kvStore, logStore, exclusive: locks !== undefined };
  }

  async #open(environment: ConnectionEnvironment): Promise<Store> {
    const options = this.#options;
    const localMutations = new LocalMutationSignal();
    const { kvStore, logStore, exclusive } = isKvProvider(options.kvStore)
      ? { kvStore: await options.kvStore.open(this.idbName), logStore: await options.kvStore.open(`${this.idbName}:log`), exclusive: false }
      : options.kvStore
        ? { kvStore: options.kvStore, logStore: options.kvStore, exclusive: false }
        : await this.#openLocalStores();
    const clientGroupID = await resolveClientGroup(kvStore, {
      mutatorNames: Object.keys(options.mutators ?? {}),
      indexes: options.indexes ?? {},
      newClientGroupID: () => randomUUID(environment.random),
      onDiscard: (reason) => this.#logger.info?.(`Starting a new client group: ${reason}`),
    });
    this.#clientGroupID = clientGroupID;
    const durable = new DurableMutations(
      logStore,
      {
        error: (message, ...details) => this.#logger.error?.(message, ...details),
        info: (message, ...details) => this.#logger.info?.(message, ...details),
      },
      { exclusive },
    );
    if (logStore !== kvStore) this.#closeLogStore = () => logStore.close();
    const store = await createStore({
      kvStore,
      clientID: this.clientID,
      mutators: options.mutators ?? {},
      indexes: options.indexes ?? {},
      clock: () => environment.clock.now(),
      timers: environment.timers,
      random: environment.random,
      logger: storeLogger(this.#logger),
      onLocalMutation: (mutation) => {
        durable.record(mutation);
        localMutations.fire();
      },
    });
    this.#store = store;
    if (this.#closed) {
      await store.close();
      await this.#closeLogStore?.();
      this.#releaseSlot?.();
      return store;
    }
    await durable.recover(store);
    localMutations.subscribe(() => this.#updatePendingCount());
    this.#updatePendingCount();
    this.#stopPersistOnHide = environment.visibility.subscribe((visible) => {
      // A hidden page may be about to unload: store the state now rather than after the persist delay.
      if (!visible) void durable.checkpoint();
    });
    if (options.socketOrigin !== null) {
      const disable = () => disableClientGroup(kvStore, clientGroupID);
      this.#connect(options.socketOrigin, clientGroupID, store, localMutations, environment, disable, () => durable.acknowledged());
    }
    return store;
  }

  #connect(
    socketOrigin: string,
    clientGroupID: string,
    store: Store,
    localMutations: LocalMutationSignal,
    environment: ConnectionEnvironment,
    disableGroup: () => Promise<void>,
    onServerUpdate: () => void,
  ): void {
    const options = this.#options;
    const connection = new Connection({
      socketOrigin,
      clientID: this.clientID,
      clientGroupID,
      roomID: this.roomID,
      schemaVersion: this.schemaVersion,
      auth: options.auth,
      syncTarget: new StoreSyncTarget(
        store,
        localMutations,
        () => {
          onServerUpdate();
          this.#updatePendingCount();
        },
        disableGroup,
      ),
      environment,
      logger: this.#logger,
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
      onOnlineChange: (online) => options.onOnlineChange?.(online),
      onUpdateNeeded: options.onUpdateNeeded ?? reloadPage,
      onClientStateNotFound: options.onClientStateNotFound ?? reloadPage,
    });
    this.#connection = connection;
    connection.onStateChange((state) => this.#updateStatus(state, connection.nextRetryAt));
    connection.start();
    if (this.#offline) connection.disconnect();
  }

  #whenOpen(start: (store: Store) => () => void, fail: (error: unknown) => void): () => void {
    if (this.#store !== undefined && !this.#closed) return start(this.#store);
    let stop: (() => void) | undefined;
    let cancelled = false;
    this.#ready.then(
      (store) => {
        if (!cancelled && !this.#closed) stop = start(store);
      },
      (error: unknown) => {
        if (!cancelled) fail(error);
      },
    );
    return () => {
      cancelled = true;
      stop?.();
    };
  }

  #makeMutators(): MakeMutators<MD> {
    const mutators: Record<string, (args?: unknown) => Promise<unknown>> = {};
    for (const name of Object.keys(this.#options.mutators ?? {})) {
      mutators[name] = async (args?: unknown) => (await this.#ready).mutate(name, args as ReadonlyJSONValue);
    }
    return Object.freeze(mutators) as unknown as MakeMutators<MD>;
  }

  #updateStatus(state: ConnectionState, nextRetryAt: number | undefined): void {
    const phase = state.phase === 'closed' ? 'disconnected' : state.phase;
    // When the client has stopped on its own, why it stopped is the reason that matters.
    const reason = phase === 'disconnected' ? (state.halt ?? state.lastDisconnectReason ?? undefined) : undefined;
    const previous = this.#status;
    if (previous.state === phase && previous.online === state.online && previous.reason === reason && previous.nextRetryAt === nextRetryAt) {
      return;
    }
    this.#status = {
      state: phase,
      online: state.online,
      ...(reason === undefined ? {} : { reason }),
      ...(nextRetryAt === undefined ? {} : { nextRetryAt }),
    };
    for (const listener of [...this.#statusListeners]) listener(this.#status);
  }

  #updatePendingCount(): void {
    const count = this.#store?.pendingMutationCount ?? 0;
    if (count === this.#pendingCount) return;
    this.#pendingCount = count;
    for (const listener of [...this.#pendingListeners]) listener(count);
  }
}

/** The Web Locks to take store slots with: the option, else the browser's; none in Node. */
function storeLocksOf(option: LockManagerLike | null | undefined): LockManagerLike | undefined {
  if (option !== undefined) return option ?? undefined;
  return (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
}

function isKvProvider(value: KvStore | KvProvider | undefined): value is KvProvider {
  return typeof (value as Partial<KvProvider> | undefined)?.open === 'function';
}

function storeLogger(logger: Logger): StoreLogger {
  return {
    error: (message, ...details) => logger.error?.(message, ...details),
    // The store warns about degradations (e.g. no IndexedDB): worth seeing at the default level.
    warn: (message, ...details) => logger.error?.(message, ...details),
    debug: (message, ...details) => logger.debug?.(message, ...details),
  };
}
