import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebSocketServer } from 'ws';
import type { MutatorDefs } from '../src/db/transaction-types';
import { adminReply, handleAdmin, type AdminReply } from './admin-api';
import { devAuthHandler, type AuthHandler } from './auth/auth';
import { AddressConnections, normalizeAddress } from './client-address';
import { CLOSE_GOING_AWAY } from './client-connection';
import { systemClock, systemTimers, type Clock, type Timers } from './clock';
import type { ServerContext } from './context';
import { createEngineHost } from './engine/create-host';
import type { EngineHost } from './engine/engine-types';
import type { MutationGuard } from './engine/mutation-guard';
import { WorkerEngineHost } from './engine/worker-host';
import { FailureLog } from './failure-log';
import { createFrontServer, frontHandler, listenOn, syncUpgradeURL } from './http-front';
import {
  DEFAULT_BYTE_BURST,
  DEFAULT_BYTES_PER_SECOND,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_MAX_ROOMS,
  DEFAULT_MAX_SEND_BUFFER_BYTES,
  DEFAULT_MUTATION_BURST,
  DEFAULT_MUTATIONS_PER_SECOND,
  DEFAULT_ROOM_QUOTA_WINDOW_MS,
  DEFAULT_ROOMS_PER_ADDRESS,
  DEFAULT_ROOMS_PER_USER,
} from './limits';
import { silentLogger, type Logger } from './logger';
import { presenceSettings, type PresenceOptions } from './presence/presence-options';
import { RoomQuota, type RoomWindows } from './room-quota';
import { RoomRegistry } from './room-registry';
import { createUpgradeHandler } from './socket-handler';
import { newCounters } from './stats';
import { MemoryStorage } from './storage/memory-storage';
import { isSharedStorage, type Storage } from './storage/types';
import { ClusterSync, DEFAULT_CLUSTER_POLL_INTERVAL_MS } from './cluster-sync';

export type { AuthClaims, AuthData, AuthHandler, AuthResult } from './auth/auth';
export { authOf, type ServerWriteTransaction } from './server-transaction';
export { devAuthHandler, ANONYMOUS_USER_ID } from './auth/auth';
export { createJwtAuthHandler, TokenRefusedError, type JwtAuthOptions } from './auth/jwt-auth';
export { createWebhookAuthHandler, type WebhookAuthOptions } from './auth/webhook-auth';
export type { Clock, Timers } from './clock';
export type { AdminReply } from './admin-api';
export type { RoomWindows } from './room-quota';
export type { MutationGuard } from './engine/mutation-guard';
export type { MutationPlace } from './engine/engine-types';
export { conformanceMutators } from './conformance-mutators';
export type { Logger, LogLevel } from './logger';
export { createJSONLogger, silentLogger } from './logger';
export type { BatchCommit, RoomMeta, Storage, StoredClient, StoredEntry, StoredRoom } from './storage/types';
export { MemoryStorage } from './storage/memory-storage';
export { SqliteStorage, type SqliteStorageOptions } from './storage/sqlite-storage';
export { PostgresStorage, PostgresUnreachableError, type PostgresStorageOptions } from './storage/postgres/postgres-storage';
export type { ClusterEvent, RoomChanges, RoomLock, SharedStorage } from './storage/types';
export { StorageUnavailableError } from './storage/types';
export { DEFAULT_PRESENCE_GRACE_MS, type PresenceOptions } from './presence/presence-options';
export { ReservedKeyError } from './presence/reserved-keys';

/** Mutators in a module, so rooms can run in worker threads. */
export interface MutatorsModule {
  /** URL (file://…) of an ES module. */
  readonly url: string;
  /** @default 'mutators' */
  readonly exportName?: string;
}

export interface ServerOptions {
  /**
   * App mutators, run authoritatively in this thread. The conformance
   * mutators are always registered too; an app mutator of the same name wins.
   * A mutator stuck in synchronous code cannot be stopped here: prefer
   * `mutatorsModule`.
   */
  readonly mutators?: MutatorDefs;
  /** App mutators in a module: rooms then run in `roomWorkers` worker threads, where a stuck mutator is stopped. */
  readonly mutatorsModule?: MutatorsModule;
  /** Worker threads for rooms (with `mutatorsModule`). @default max(2, os.availableParallelism()) */
  readonly roomWorkers?: number;
  /**
   * Let threads wait for each other's messages by turning their event loops
   * for a fraction of a millisecond (only while the machine has a core to
   * spare), which shortens a push's round trip through a room worker; false:
   * they always sleep. The time spent shows in the admin stats (`spinWait`).
   * @default true
   */
  readonly spinWait?: boolean;
  /** Whether the machine has a core to spare now (threads turn only then). @default reads Linux's CPU pressure (else the load average) once a second */
  readonly hasSpareCore?: () => boolean;
  /** @default devAuthHandler (any non-empty token is the user id): development only */
  readonly authHandler?: AuthHandler;
  /** Connect a missing, empty or undecodable token as the user `anonymous` instead of refusing it. @default false */
  readonly allowAnonymous?: boolean;
  /** Browser origins allowed besides the page's own (`https://app.example.com`, or `*`). @default [] */
  readonly allowedOrigins?: readonly string[];
  /**
   * Addresses of the reverse proxies in front of the server (TLS at the
   * proxy): a socket from one of them is counted under the client address
   * its X-Forwarded-For names (per-address quotas and limits); without this
   * every client behind the proxy counts as the proxy. @default []
   */
  readonly trustedProxies?: readonly string[];
  /**
   * Sockets one peer address may hold open at once (counted as they connect;
   * more are closed), or one client address behind `trustedProxies` (counted
   * at the upgrade; more get HTTP 429). Loopback peers are not capped unless
   * `trustedProxies` is given. @default 1000
   */
  readonly maxConnectionsPerAddress?: number;
  /** Also allow pages on loopback hosts (localhost, 127.0.0.1, [::1]), for development. @default true */
  readonly allowLoopbackOrigins?: boolean;
  /** @default a MemoryStorage (nothing survives the process) */
  readonly storage?: Storage;
  /** Refuse connects to rooms not created through the admin API. @default false */
  readonly requireRooms?: boolean;
  /** Key of the admin API. @default undefined (the admin API answers 401 to everything) */
  readonly adminKey?: string;
  /** Largest accepted frame; larger ones close the socket (1009). @default 1 MiB */
  readonly maxFrameBytes?: number;
  /** @default 1000 */
  readonly maxMutationsPerPush?: number;
  /** Unsent bytes after which a connection is dropped. @default 8 MiB */
  readonly maxSendBufferBytes?: number;
  /** Tombstones kept per room for catch-up. @default 10000 */
  readonly maxTombstonesPerRoom?: number;
  /** A mutation that would take a room over this many bytes (what its entries add to a catch-up poke, UTF-8) is skipped. @default 64 MiB */
  readonly maxRoomBytes?: number;
  /**
   * New client records one user may add to a room per hour (a connect with a
   * new client id, or a push naming one); beyond, the connect or push is
   * refused. Anonymous clients count per address. @default 2000
   */
  readonly newClientsPerUser?: number;
  /** Rooms stored in total beyond which connects create no more. @default 10000 */
  readonly maxRooms?: number;
  /** Rooms one user may create by connecting, per `roomQuotaWindowMs`. @default 100 */
  readonly roomsPerUser?: number;
  /** Rooms one client address may create by connecting, per `roomQuotaWindowMs`. @default 100 */
  readonly roomsPerAddress?: number;
  /** @default 1 hour */
  readonly roomQuotaWindowMs?: number;
  /** Sustained mutations/s per connection; beyond (and a burst of `mutationBurst`) the socket is paused. @default 20000 */
  readonly mutationsPerSecond?: number;
  /** @default 100000 */
  readonly mutationBurst?: number;
  /** Sustained bytes/s read per connection. @default 8 MiB */
  readonly bytesPerSecond?: number;
  /** @default 16 MiB */
  readonly byteBurst?: number;
  /** A connection silent (no frame, no pong) this long is closed. @default 30000 */
  readonly idleTimeoutMs?: number;
  /** A room runs at most this long before other rooms and sockets go. @default 10 */
  readonly sliceMs?: number;
  /** CPU ms a room may use per second while other rooms of its thread wait. @default 500 */
  readonly roomCpuBudgetMs?: number;
  /** Serve files from this directory (index.html for unknown extension-less paths). @default undefined */
  readonly staticDir?: string;
  /** @default silentLogger */
  readonly logger?: Logger;
  /** @default Date.now */
  readonly clock?: Clock;
  /** @default the global setTimeout/clearTimeout */
  readonly timers?: Timers;
  /** A mutator still running after this long is failed and skipped, so it cannot stall its room. @default 5000 */
  readonly mutatorTimeoutMs?: number;
  /** @default process.memoryUsage */
  readonly memoryUsage?: () => NodeJS.MemoryUsage;
  /**
   * With a shared storage (PostgreSQL, several nodes): how often this node
   * compares the rooms it holds with the storage, in case a notification of
   * another node's change was missed.
   * @default 2000
   */
  readonly clusterPollIntervalMs?: number;
  /**
   * Presence: the server keeps a key per connected client under
   * PRESENCE_KEY_PREFIX (`_roomsync/presence/<clientID>` →
   * `{clientID, userID, state, node}`), written with the batches like any
   * data, removed `graceMs` after the client's last connection closed.
   * `false` turns it off.
   * @default true (graceMs 10000)
   */
  readonly presence?: boolean | PresenceOptions;
}

export interface ListeningInfo {
  readonly port: number;
  /** ws://host:port */
  readonly url: string;
  /** http://host:port/api/admin */
  readonly adminURL: string;
}

export interface RoomsyncServer {
  /** Where rooms run (worker threads with `mutatorsModule`). */
  readonly host: EngineHost;
  listen(port: number, host?: string): Promise<ListeningInfo>;
  /** Starts what serves without listening (worker threads, the cluster's notifications); listen() does it first. For a server given its sockets by handleUpgrade. */
  start(): Promise<void>;
  /** Graceful: stop accepting, finish and store queued batches, close sockets, close the storage. */
  close(): Promise<void>;
  /** For embedding in another HTTP server: hand it the `upgrade` events of /api/sync/. */
  handleUpgrade(req: IncomingMessage, socket: import('node:stream').Duplex, head: Buffer): void;
  /** For embedding: the HTTP request handler (admin API, static files). */
  handleRequest(req: IncomingMessage, res: ServerResponse): void;
  /** Answers an admin request given as data, without checking the admin key (the caller did): path under /api/admin, body as text. */
  adminRequest(method: string, path: string, body: string): Promise<AdminReply>;
}

/** What the CLI's room processes (server/processes) set up differently; not for embedders. */
export interface ServerInternals {
  /** Runs rooms in this thread, each room's mutators under the guard given. */
  readonly guardFor?: (roomID: string) => MutationGuard;
  /** Every socket handed to handleUpgrade was counted against the per-address cap already (by the acceptor that passed it on). */
  readonly socketsCounted?: boolean;
  /** The windows of rooms created per user and per address, when they are kept elsewhere (the acceptor's). */
  readonly roomWindows?: RoomWindows;
}

/** How long shutdown waits for clients to answer the close handshake. */
const SOCKET_CLOSE_GRACE_MS = 1000;


export function createServer(options: ServerOptions = {}, internals: ServerInternals = {}): RoomsyncServer {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const timers = options.timers ?? systemTimers;
  const storage = options.storage ?? new MemoryStorage();
  const counters = newCounters();
  const host = createEngineHost(options, timers, logger, counters, internals.guardFor);
  const presence = presenceSettings(options.presence, timers, isSharedStorage(storage));
  const trustedProxies = new Set((options.trustedProxies ?? []).map(normalizeAddress));
  const registry = new RoomRegistry({ storage, host, clock, logger, counters, failures: new FailureLog(logger, clock), presence, timers });
  const ctx: ServerContext = {
    registry,
    storage,
    host,
    authHandler: options.authHandler ?? devAuthHandler,
    allowAnonymous: options.allowAnonymous ?? false,
    originPolicy: {
      allowed: options.allowedOrigins ?? [],
      loopback: options.allowLoopbackOrigins ?? true,
      // A token proves nothing here: a page of another site rebound to this server by DNS could act as anyone.
      guardRebinding: (options.authHandler ?? devAuthHandler) === devAuthHandler,
    },
    trustedProxies,
    addressConnections: new AddressConnections(options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, trustedProxies),
    socketsCounted: internals.socketsCounted ?? false,
    requireRooms: options.requireRooms ?? false,
    roomQuota: new RoomQuota(
      storage,
      clock,
      {
        maxRooms: options.maxRooms ?? DEFAULT_MAX_ROOMS,
        roomsPerUser: options.roomsPerUser ?? DEFAULT_ROOMS_PER_USER,
        roomsPerAddress: options.roomsPerAddress ?? DEFAULT_ROOMS_PER_ADDRESS,
        windowMs: options.roomQuotaWindowMs ?? DEFAULT_ROOM_QUOTA_WINDOW_MS,
      },
      internals.roomWindows,
    ),
    adminKey: options.adminKey,
    logger,
    clock,
    timers,
    counters,
    limits: {
      maxSendBufferBytes: options.maxSendBufferBytes ?? DEFAULT_MAX_SEND_BUFFER_BYTES,
      mutationsPerSecond: options.mutationsPerSecond ?? DEFAULT_MUTATIONS_PER_SECOND,
      mutationBurst: options.mutationBurst ?? DEFAULT_MUTATION_BURST,
      bytesPerSecond: options.bytesPerSecond ?? DEFAULT_BYTES_PER_SECOND,
      byteBurst: options.byteBurst ?? DEFAULT_BYTE_BURST,
      idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    },
    memoryUsage: options.memoryUsage ?? (() => process.memoryUsage()),
    connections: new Set(),
    shuttingDown: false,
  };
  // Several nodes on one storage: other nodes' batches, closes, deletes and invalidations reach this one.
  const cluster = isSharedStorage(storage) ? new ClusterSync(ctx, storage, options.clusterPollIntervalMs ?? DEFAULT_CLUSTER_POLL_INTERVAL_MS) : undefined;
  let clusterStarted = false;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
    // Echo the auth token subprotocol: browsers close the socket otherwise.
    handleProtocols: (protocols) => protocols.values().next().value ?? false,
  });
  const onUpgrade = createUpgradeHandler(ctx, wss);

  const handleUpgrade: RoomsyncServer['handleUpgrade'] = (req, socket, head) => {
    if (syncUpgradeURL(req, socket) === undefined) return;
    onUpgrade(req, socket, head).catch((error: unknown) => {
      logger.error('upgrade failed', { error });
      socket.destroy();
    });
  };

  const handleRequest: RoomsyncServer['handleRequest'] = frontHandler(
    { staticDir: options.staticDir, admin: (req, res, pathname) => handleAdmin(ctx, req, res, pathname) },
    logger,
  );

  const http = createFrontServer(handleRequest, ctx.addressConnections, () => ctx.counters.rejectedConnects++);
  http.on('upgrade', handleUpgrade);
  let closing: Promise<void> | undefined;

  async function start(): Promise<void> {
    if (host instanceof WorkerEngineHost) await host.ready();
    if (cluster !== undefined && !clusterStarted) {
      await cluster.start();
      clusterStarted = true;
    }
  }

  return {
    handleUpgrade,
    handleRequest,
    adminRequest: (method, path, body) => adminReply(ctx, method, path, body),
    host,
    start,
    async listen(port, hostname = '127.0.0.1') {
      await start();
      return listenOn(http, port, hostname);
    },
    close() {
      closing ??= (async () => {
        ctx.shuttingDown = true;
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        const rooms = await registry.loaded();
        await Promise.all(rooms.map((r) => r.stop()));
        const sockets = [...wss.clients];
        const allClosed = Promise.all(sockets.map((ws) => new Promise((resolve) => ws.once('close', resolve))));
        for (const ws of sockets) ws.close(CLOSE_GOING_AWAY, 'server shutting down');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([allClosed, new Promise((resolve) => (timer = setTimeout(resolve, SOCKET_CLOSE_GRACE_MS)))]);
        clearTimeout(timer);
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        http.closeAllConnections();
        await stopped;
        cluster?.stop();
        await host.shutdown();
        await storage.close();
        logger.info('server stopped');
      })();
      return closing;
    },
  };
}

