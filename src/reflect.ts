/**
 * The public client: the local store and the connection, glued together.
 * Platform defaults come from connection/default-environment (the edge).
 */
import type { ReadonlyJSONValue } from '../protocol/json';
import type { AuthOption } from './connection/auth';
import { Connection, type UpdateNeededReason as ConnectionUpdateNeededReason } from './connection/connection';
import { defaultEnvironment, reloadPage } from './connection/default-environment';
import type { ConnectionEnvironment } from './connection/environment';
import { randomUUID } from './connection/random-id';
import type { ConnectionState } from './connection/state';
import { LocalMutationSignal, StoreSyncTarget } from './connection/store-sync-target';
import { assertMutationFitsPush, PUSH_MAX_FRAME_BYTES, soloPushFrameBytes } from './connection/push-limits';
import type { IndexDefinitions } from './db/index-definition';
import { jsonBytesAtMost } from './db/json-bytes-bound';
import type { StoreLogger } from './db/logger';
import type { Store } from './db/store';
import type { SubscribeOptions } from './db/subscriptions';
import type { MutatorDefs, ReadTransaction, WriteTransaction } from './db/transaction-types';
import type { WatchCallback, WatchOptions } from './db/watch';
import { createConsoleSink } from './logging/console-sink';
import type { LogLevel, LogSink } from './logging/log-sink';
import { Logger } from './logging/logger';
import type { Metrics } from './metrics/metrics';
import { ClientLifecycle } from './persist/client-lifecycle';
import { openClientStore, type ClientStore } from './persist/client-store';
import { disableGroup } from './persist/records';
import { chooseProvider, openLocalStores, type KvStoreOption, type LocalStores } from './persist/local-stores';
import { dataStoreName, logStoreName, storeBaseName } from './persist/store-names';
import { StoreRegistry } from './persist/store-registry';
import { platformBroadcastChannel, TabChannel, type BroadcastChannelConstructor, type TabMessage } from './persist/tab-channel';
import { Throttle } from './persist/throttle';
import { RecoveryRunner } from './persist/recovery-runner';
import { withPresenceMutator } from './presence/presence-mutator';
import type { Presence } from './presence/presence-view';
import { presenceOf, type ReflectPresence } from './presence/reflect-presence';

/** Other tabs hear of this tab's logged mutations at most this often (the first at once). */
const LOGGED_NOTICE_INTERVAL_MS = 16;

/** Why the app should load a newer version: the server does not support this one, or a newer client in another tab started a group of its own. */
export type UpdateNeededReason = ConnectionUpdateNeededReason | { readonly type: 'NewClientGroup' };

/** The platform as the client sees it: the connection's parts and the channel the tabs talk over. */
export interface ReflectEnvironment extends ConnectionEnvironment {
  /** @default the platform's BroadcastChannel (none: tabs learn of each other's changes at their own persists) */
  readonly BroadcastChannel: BroadcastChannelConstructor | undefined;
}

export interface ReflectOptions<MD extends MutatorDefs> {
  /** The signed-in user; part of the local store name. Must not be empty. */
  readonly userID: string;
  /** The room to sync. */
  readonly roomID: string;
  /** The sync server, `ws://` or `wss://`; null keeps the client local-only (no socket). */
  readonly socketOrigin: string | null;
  /** The auth token, or a function returning one (called again after an auth error). @default undefined */
  readonly auth?: AuthOption;
  /** Sent with every push; clients of another schema version keep a local store of their own. @default '' */
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
  /** A newer client is needed (the server's verdict, or a newer client in another tab). @default reloads the page */
  readonly onUpdateNeeded?: (reason: UpdateNeededReason) => void;
  /** The server or the local store lost this client's state. @default reloads the page */
  readonly onClientStateNotFound?: () => void;
  /** Replaces parts of the platform (socket constructor, clock, timers, random, visibility, network, BroadcastChannel). For tests and Node. */
  readonly environment?: Partial<ReflectEnvironment>;
  /**
   * Where the local stores live: 'idb' (IndexedDB), 'mem' (memory, shared by
   * the clients of this JS realm), or a KvProvider (e.g. roomsync/node's SQLite).
   * @default 'idb' where the platform has IndexedDB, else 'mem'
   */
  readonly kvStore?: KvStoreOption;
  /** The IndexedDB to keep the local stores in. @default globalThis.indexedDB */
  readonly idbFactory?: IDBFactory;
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

/** The name the local stores of a user in a room start with. */
export function storeName(userID: string, roomID: string): string {
  return storeBaseName(userID, roomID);
}

export class Reflect<MD extends MutatorDefs = MutatorDefs> {
  readonly userID: string;
  readonly roomID: string;
  readonly clientID: string;
  /**
   * The client group this client belongs to: shared by the tabs and page
   * loads of this user and room with the same mutators, indexes and schema
   * version, so mutations one of them left pending are pushed by any other.
   * Known once the local store is open.
   */
  readonly clientGroupID: Promise<string>;
  /** The local store (IndexedDB database) of this user, room and schema version. */
  readonly idbName: string;
  readonly schemaVersion: string;
  readonly mutate: MakeMutators<MD>;

  readonly #options: ReflectOptions<MD>;
  /** The app's mutators and the built-in ones. */
  readonly #storeMutators: MutatorDefs;
  readonly #presence: ReflectPresence;
  readonly #logger: Logger;
  readonly #ready: Promise<Store>;
  /** What #ready resolved to, once it has (a mutation then calls it without awaiting #ready). */
  #opened: Store | undefined;
  /** Resolves once the store can be read (before the join's commit has ended; see ClientStoreOptions.onReadable). */
  readonly #readable: Promise<Store>;
  #onReadable: ((store: Store) => void) | undefined;
  readonly #statusListeners = new Set<(status: ConnectionStatus) => void>();
  readonly #pendingListeners = new Set<(count: number) => void>();
  #store: Store | undefined;
  #local: ClientStore | undefined;
  #lifecycle: ClientLifecycle | undefined;
  #recovery: RecoveryRunner | undefined;
  #unwatchNetwork: (() => void) | undefined;
  #registry: StoreRegistry | undefined;
  #channel: TabChannel | undefined;
  #connection: Connection | undefined;
  #closed = false;
  #offline = false;
  #stateLost = false;
  #updateNeeded = false;
  #status: ConnectionStatus = { state: 'disconnected', online: false };
  #pendingCount = 0;
  #stopPersistOnHide: (() => void) | undefined;
  #clientGroupID: string | undefined;
  #waitForLog = false;
  #loggedNotice: Throttle | undefined;
  #shuttingDown: Promise<void> | undefined;

  constructor(options: ReflectOptions<MD>) {
    if (typeof options.userID !== 'string' || options.userID === '') {
      throw new Error('ReflectOptions.userID must not be empty.');
    }
    const { socketOrigin } = options;
    if (socketOrigin !== null && !/^wss?:\/\//.test(String(socketOrigin))) {
      throw new Error("ReflectOptions.socketOrigin must use the 'ws' or 'wss' scheme.");
    }
    this.#options = options;
    this.#storeMutators = withPresenceMutator(options.mutators ?? {});
    this.userID = options.userID;
    this.roomID = options.roomID;
    this.schemaVersion = options.schemaVersion ?? '';
    this.idbName = dataStoreName(options.userID, options.roomID, this.schemaVersion);
    // The local stores start opening first: IndexedDB opens them while the rest of the client is made (a
    // page's first run of that code takes a good part of a millisecond). What is logged before the logger
    // exists is written once it does.
    const early: [level: 'error' | 'warn' | 'info' | 'debug', message: string, details: unknown[]][] = [];
    const log = alwaysLogger((level, message, details) => {
      if (this.#logger === undefined) early.push([level, message, details]);
      else this.#logger[level]?.(message, ...details);
    });
    const opening = openLocalStores(chooseProvider(options.kvStore, options.idbFactory, log), this.idbName, logStoreName(this.idbName), log);
    const { BroadcastChannel, ...connectionParts } = options.environment ?? {};
    const environment: ReflectEnvironment = {
      ...defaultEnvironment(connectionParts),
      BroadcastChannel: options.environment !== undefined && 'BroadcastChannel' in options.environment ? BroadcastChannel : platformBroadcastChannel(),
    };
    this.clientID = randomUUID(environment.random);
    this.#logger = new Logger(options.logLevel ?? 'error', options.logSinks ?? [createConsoleSink()], {
      roomID: options.roomID,
      clientID: this.clientID,
    });
    for (const [level, message, details] of early) this.#logger[level]?.(message, ...details);
    this.mutate = this.#makeMutators();
    let readableFailed: (error: unknown) => void;
    this.#readable = new Promise<Store>((resolve, reject) => {
      this.#onReadable = resolve;
      readableFailed = reject;
    });
    this.#readable.catch(() => {});
    this.#ready = this.#open(environment, log, opening);
    this.#ready.then((store) => {
      this.#opened = store;
      this.#onReadable?.(store);
    }, readableFailed!);
    this.#ready.catch((error: unknown) => this.#logger.error?.('Could not open the local store', error));
    this.clientGroupID = this.#ready.then(() => this.#clientGroupID!);
    this.#presence = presenceOf(this, environment, this.#ready, (message, error) => this.#logger.error?.(message, error));
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

  /** Mutations of this client group the server has not acknowledged yet (this tab's and its siblings'). */
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
    const store = await this.#readable;
    // Readable, then closed without close(): the open failed after (e.g. the join's commit); say why.
    if (store.closed && !this.#closed) await this.#ready;
    return store.query(body);
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

  /**
   * Sets this client's presence state (e.g. a cursor), seen by everyone in
   * the room until this client leaves. Small: at most PRESENCE_STATE_MAX_BYTES
   * of JSON. Throws PresenceStateError (nothing changes) when it is not JSON
   * or too large. Sent while connected, at most every PRESENCE_SEND_INTERVAL_MS
   * (the latest state always goes), and again after a reconnect if the
   * server forgot it.
   */
  setPresence(state: ReadonlyJSONValue): void {
    this.#presence.set(state);
  }

  /**
   * Calls `callback` with who is in the room — every client with its user id
   * and state, and the same grouped by user (one person in two tabs is one
   * user) — once known and whenever it changes. This client's own state
   * shows as set at once. While disconnected the last known presence stays.
   * `S` is the app's state type (not checked: other clients set it). Returns
   * the unsubscribe function.
   */
  subscribeToPresence<S = ReadonlyJSONValue>(callback: (presence: Presence<S>) => void): () => void {
    return this.#presence.subscribe(callback as (presence: Presence) => void);
  }

  /** Closes the socket, stores what is only in memory and closes the local store. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#presence.close();
    this.#connection?.close();
    try {
      await this.#ready;
    } catch {
      return;
    }
    await this.#shutDown();
    await this.#logger.flush();
  }

  /** Once: close() and an open that finds itself closed may both ask for it. */
  #shutDown(): Promise<void> {
    this.#shuttingDown ??= this.#shutDownOnce();
    return this.#shuttingDown;
  }

  async #shutDownOnce(): Promise<void> {
    this.#connection?.close();
    this.#stopPersistOnHide?.();
    this.#loggedNotice?.cancel();
    this.#channel?.close();
    await this.#lifecycle?.stop();
    this.#unwatchNetwork?.();
    await this.#recovery?.stop();
    try {
      await this.#local?.close();
    } catch (error) {
      this.#logger.error?.('Could not store the local state at close', error);
    }
    await this.#registry?.close();
  }

  async #open(environment: ReflectEnvironment, log: ReturnType<typeof alwaysLogger>, opening: ReturnType<typeof openLocalStores>): Promise<Store> {
    const options = this.#options;
    const logger = this.#logger;
    const opened = await opening;
    const localMutations = new LocalMutationSignal();
    const local = await openClientStore({
      dataKv: opened.dataKv,
      // The join starts while the log opens.
      logKv: opened.logKv,
      clientID: this.clientID,
      mutators: this.#storeMutators,
      indexes: options.indexes ?? {},
      clock: () => environment.clock.now(),
      timers: environment.timers,
      random: environment.random,
      logger: log,
      newClientGroupID: () => randomUUID(environment.random),
      keepOwnSnapshot: () => this.#connection?.phase === 'connected',
      onLocalMutation: () => localMutations.fire(),
      onGroupHeadMoved: () => this.#tell('stored'),
      onLogged: () => this.#loggedNotice?.request(),
      // Other tabs' mutations come in with refreshes: the count follows the view.
      onSynced: () => this.#updatePendingCount(),
      onClientStateNotFound: () => this.#clientStateNotFound(),
      onReadable: (store) => this.#onReadable?.(store),
      ...(opened.chainHint === undefined ? {} : { chainHint: opened.chainHint }),
      ...(opened.logsRead === undefined ? {} : { logsRead: opened.logsRead }),
    });
    // Made once the store is open (nothing is told before; what other tabs said meanwhile no listener would have heard).
    const channel = new TabChannel(environment.BroadcastChannel, storeBaseName(this.userID, this.roomID));
    this.#channel = channel;
    this.#local = local;
    const stores: LocalStores = { provider: opened.provider, dataKv: opened.dataKv, logKv: await opened.logKv, logInMemory: await opened.logInMemory };
    this.#store = local.store;
    this.#loggedNotice = new Throttle(environment.timers, LOGGED_NOTICE_INTERVAL_MS, () => this.#tell('logged'));
    this.#waitForLog = stores.provider.cheapCommits === true;
    this.#clientGroupID = local.clientGroupID;
    if (local.joined.how !== 'joined') this.#tell('new-group');
    channel.subscribe((message) => this.#onTabMessage(message));
    const registry = new StoreRegistry(stores.provider);
    this.#registry = registry;
    this.#lifecycle = new ClientLifecycle({
      perdag: local.perdag,
      logKv: stores.logKv,
      logInMemory: stores.logInMemory,
      clientID: this.clientID,
      dataName: this.idbName,
      registry,
      provider: stores.provider,
      now: () => environment.clock.now(),
      timers: environment.timers,
      logger: log,
      onClientStateNotFound: () => this.#clientStateNotFound(),
    });
    if (this.#closed) {
      await this.#shutDown();
      return local.store;
    }
    this.#lifecycle.start(local.firstRead);
    localMutations.subscribe(() => this.#updatePendingCount());
    this.#updatePendingCount();
    this.#stopPersistOnHide = environment.visibility.subscribe((visible) => {
      // A hidden page may be about to unload: store the state now rather than after the persist delay.
      if (!visible) void local.sync().catch((error: unknown) => logger.error?.('Could not store the local state', error));
    });
    if (options.socketOrigin !== null) {
      const disable = () => disableGroup(local.perdag, local.clientGroupID);
      const connection = this.#connect(options.socketOrigin, local.clientGroupID, local.store, localMutations, environment, disable, () => local.acknowledged());
      this.#startRecovery(connection, local, stores, registry, environment, log);
    }
    return local.store;
  }

  #tell(type: TabMessage['type']): void {
    const clientGroupID = this.#clientGroupID;
    if (clientGroupID === undefined) return;
    this.#channel?.post({ type, store: this.idbName, clientGroupID, clientID: this.clientID });
  }

  #onTabMessage(message: TabMessage): void {
    if (message.clientID === this.clientID || this.#closed) return;
    const sameGroup = message.store === this.idbName && message.clientGroupID === this.#clientGroupID;
    if (message.type === 'stored') {
      if (sameGroup) this.#local?.refreshSoon();
      return;
    }
    if (message.type === 'logged') {
      if (sameGroup) void this.#local?.catchUp(message.clientID);
      return;
    }
    if (message.clientGroupID === this.#clientGroupID || this.#updateNeeded) return;
    this.#updateNeeded = true;
    this.#logger.info?.(`Another tab started client group ${message.clientGroupID} with other mutators, indexes or schema version`);
    this.#callback('onUpdateNeeded', () => (this.#options.onUpdateNeeded ?? reloadPage)({ type: 'NewClientGroup' }));
  }

  #clientStateNotFound(): void {
    if (this.#stateLost || this.#closed) return;
    this.#stateLost = true;
    if (this.#connection !== undefined) this.#connection.clientStateNotFound();
    else this.#callback('onClientStateNotFound', () => (this.#options.onClientStateNotFound ?? reloadPage)());
  }

  #callback(name: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.#logger.error?.(`${name} threw`, error);
    }
  }

  #connect(
    socketOrigin: string,
    clientGroupID: string,
    store: Store,
    localMutations: LocalMutationSignal,
    environment: ConnectionEnvironment,
    disableGroup: () => Promise<void>,
    onServerUpdate: () => void,
  ): Connection {
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
    return connection;
  }

  /** Mutation recovery of other client groups of this user and room, over this client's socket. */
  #startRecovery(
    connection: Connection,
    local: ClientStore,
    stores: LocalStores,
    registry: StoreRegistry,
    environment: ReflectEnvironment,
    log: ReturnType<typeof alwaysLogger>,
  ): void {
    const recovery = new RecoveryRunner({
      channel: {
        get connected() {
          return connection.phase === 'connected';
        },
        push: (clientGroupID, schemaVersion, mutations) => connection.pushFor(clientGroupID, schemaVersion, mutations),
        pull: (clientGroupID, cookie) => connection.pull(clientGroupID, cookie),
      },
      registry,
      provider: stores.provider,
      dataName: this.idbName,
      perdag: local.perdag,
      logKv: stores.logKv,
      clientGroupID: local.clientGroupID,
      userID: this.userID,
      roomID: this.roomID,
      now: () => environment.clock.now(),
      timers: environment.timers,
      logger: log,
      onVersionNotSupported: () => this.#callback('onUpdateNeeded', () => (this.#options.onUpdateNeeded ?? reloadPage)({ type: 'VersionNotSupported' })),
    });
    this.#recovery = recovery;
    connection.onStateChange((state) => {
      if (state.phase === 'connected') recovery.connected();
    });
    this.#unwatchNetwork = environment.network.subscribe((online) => {
      if (online) recovery.networkOnline();
    });
  }

  #whenOpen(start: (store: Store) => () => void, fail: (error: unknown) => void): () => void {
    if (this.#store !== undefined && !this.#closed) return start(this.#store);
    let stop: (() => void) | undefined;
    let cancelled = false;
    this.#readable.then(
      (store) => {
        if (cancelled || this.#closed) return;
        if (!store.closed) {
          stop = start(store);
          return;
        }
        // The open failed after the store became readable (see query): say why.
        this.#ready.catch((error: unknown) => {
          if (!cancelled) fail(error);
        });
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
      // The widest solo push frame of this mutator with null arguments: all of it but the arguments (measured at its first call, not at start-up).
      let restBytes: number | undefined;
      mutators[name] = async (args?: unknown) => {
        restBytes ??= soloPushFrameBytes(name, null, this.schemaVersion);
        // A mutation no push frame can carry would block the queue for good: refused now (measured exactly only when it could come near).
        if (restBytes + jsonBytesAtMost(args ?? null) > PUSH_MAX_FRAME_BYTES) assertMutationFitsPush(name, args as ReadonlyJSONValue, this.schemaVersion);
        const result = await (this.#opened ?? (await this.#ready)).mutate(name, args as ReadonlyJSONValue);
        // Where commits are cheap, resolve only once the mutation is in the write-ahead log: durable whatever happens next.
        if (this.#waitForLog) await this.#local?.whenLogged();
        return result;
      };
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

/** Writers that are always there (those of a disabled level write nothing), all through `write`. */
function alwaysLogger(
  write: (level: 'error' | 'warn' | 'info' | 'debug', message: string, details: unknown[]) => void,
): StoreLogger & { info(message: string, ...details: unknown[]): void } {
  return {
    error: (message, ...details) => write('error', message, details),
    warn: (message, ...details) => write('warn', message, details),
    info: (message, ...details) => write('info', message, details),
    debug: (message, ...details) => write('debug', message, details),
  };
}
