import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { MutatorDefs } from '../src/db/transaction-types';
import { ADMIN_PATH, handleAdmin } from './admin-api';
import { devAuthHandler, type AuthHandler } from './auth';
import { CLOSE_GOING_AWAY } from './client-connection';
import type { Clock, Timers } from './clock';
import { conformanceMutators } from './conformance-mutators';
import type { ServerContext } from './context';
import {
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_MAX_MUTATIONS_PER_PUSH,
  DEFAULT_MAX_SEND_BUFFER_BYTES,
  DEFAULT_MAX_TOMBSTONES_PER_ROOM,
  DEFAULT_MUTATOR_TIMEOUT_MS,
} from './limits';
import { silentLogger, type Logger } from './logger';
import { parseRequestURL } from './request-url';
import { RoomRegistry } from './room-registry';
import { createUpgradeHandler } from './socket-handler';
import { serveStatic } from './static-files';
import { newCounters } from './stats';
import { MemoryStorage } from './storage/memory-storage';
import type { Storage } from './storage/types';

export type { AuthHandler, AuthResult } from './auth';
export { devAuthHandler, ANONYMOUS_USER_ID } from './auth';
export type { Clock, Timers } from './clock';
export { conformanceMutators } from './conformance-mutators';
export type { Logger, LogLevel } from './logger';
export { createJSONLogger, silentLogger } from './logger';
export type { BatchCommit, RoomMeta, Storage, StoredClient, StoredEntry, StoredRoom } from './storage/types';
export { MemoryStorage } from './storage/memory-storage';
export { SqliteStorage, type SqliteStorageOptions } from './storage/sqlite-storage';

export interface ServerOptions {
  /** App mutators, run authoritatively. The conformance mutators are always registered too; an app mutator of the same name wins. */
  readonly mutators?: MutatorDefs;
  /** @default devAuthHandler (any token is the user id; none is anonymous) */
  readonly authHandler?: AuthHandler;
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
}

export interface ListeningInfo {
  readonly port: number;
  /** ws://host:port */
  readonly url: string;
  /** http://host:port/api/admin */
  readonly adminURL: string;
}

export interface RoomsyncServer {
  listen(port: number, host?: string): Promise<ListeningInfo>;
  /** Graceful: stop accepting, finish and store queued batches, close sockets, close the storage. */
  close(): Promise<void>;
  /** For embedding in another HTTP server: hand it the `upgrade` events of /api/sync/. */
  handleUpgrade(req: IncomingMessage, socket: import('node:stream').Duplex, head: Buffer): void;
  /** For embedding: the HTTP request handler (admin API, static files). */
  handleRequest(req: IncomingMessage, res: ServerResponse): void;
}

/** How long shutdown waits for clients to answer the close handshake. */
const SOCKET_CLOSE_GRACE_MS = 1000;

const systemClock: Clock = { now: () => Date.now() };
const systemTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export function createServer(options: ServerOptions = {}): RoomsyncServer {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const storage = options.storage ?? new MemoryStorage();
  const counters = newCounters();
  const mutators: MutatorDefs = { ...conformanceMutators, ...options.mutators };
  const registry = new RoomRegistry({
    storage,
    mutators,
    clock,
    timers: options.timers ?? systemTimers,
    mutatorTimeoutMs: options.mutatorTimeoutMs ?? DEFAULT_MUTATOR_TIMEOUT_MS,
    logger,
    counters,
    maxMutationsPerPush: options.maxMutationsPerPush ?? DEFAULT_MAX_MUTATIONS_PER_PUSH,
    maxTombstones: options.maxTombstonesPerRoom ?? DEFAULT_MAX_TOMBSTONES_PER_ROOM,
  });
  const ctx: ServerContext = {
    registry,
    storage,
    authHandler: options.authHandler ?? devAuthHandler,
    requireRooms: options.requireRooms ?? false,
    adminKey: options.adminKey,
    logger,
    clock,
    counters,
    maxSendBufferBytes: options.maxSendBufferBytes ?? DEFAULT_MAX_SEND_BUFFER_BYTES,
    memoryUsage: options.memoryUsage ?? (() => process.memoryUsage()),
    connections: new Set(),
    shuttingDown: false,
  };
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
    // Echo the auth token subprotocol: browsers close the socket otherwise.
    handleProtocols: (protocols) => protocols.values().next().value ?? false,
  });
  const onUpgrade = createUpgradeHandler(ctx, wss);

  const handleUpgrade: RoomsyncServer['handleUpgrade'] = (req, socket, head) => {
    const pathname = parseRequestURL(req.url)?.pathname;
    if (pathname === undefined || !pathname.startsWith('/api/sync/')) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    onUpgrade(req, socket, head).catch((error: unknown) => {
      logger.error('upgrade failed', { error });
      socket.destroy();
    });
  };

  const handleRequest: RoomsyncServer['handleRequest'] = (req, res) => {
    void answer(req, res).catch((error: unknown) => {
      logger.error('request failed', { url: req.url, error });
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = parseRequestURL(req.url)?.pathname;
    if (pathname === undefined) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad Request');
    if (pathname === ADMIN_PATH || pathname.startsWith(`${ADMIN_PATH}/`)) return handleAdmin(ctx, req, res, pathname);
    if (pathname === '/healthz') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (pathname.startsWith('/api/sync/')) return void res.writeHead(426, { 'content-type': 'text/plain' }).end('Upgrade Required');
    if (options.staticDir !== undefined && (await serveStatic(options.staticDir, req, res, pathname))) return;
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
  }

  const http = createHttpServer(handleRequest);
  http.on('upgrade', handleUpgrade);
  let closing: Promise<void> | undefined;

  return {
    handleUpgrade,
    handleRequest,
    listen(port, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        http.once('error', reject);
        http.listen(port, host, () => {
          http.off('error', reject);
          const actual = (http.address() as AddressInfo).port;
          const hostPart = host.includes(':') ? `[${host}]` : host;
          resolve({ port: actual, url: `ws://${hostPart}:${actual}`, adminURL: `http://${hostPart}:${actual}${ADMIN_PATH}` });
        });
      });
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
        await storage.close();
        logger.info('server stopped');
      })();
      return closing;
    },
  };
}
