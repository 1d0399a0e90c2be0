/**
 * The HTTP server of `--room-processes N`: answers health checks, static
 * files and the admin API (asking the room processes), and hands each
 * connect request, with its socket, to the process of its room.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ADMIN_PATH, adminAuthorized, adminFailure, adminPathParts, readAdminBody, sendReply, type AdminReply } from '../admin-api';
import { AddressConnections, clientAddress, normalizeAddress } from '../client-address';
import { createFrontServer, frontHandler, listenOn, syncUpgradeURL } from '../http-front';
import type { ListeningInfo } from '../index';
import { DEFAULT_MAX_CONNECTIONS_PER_ADDRESS } from '../limits';
import type { Logger } from '../logger';
import { refuseUpgrade } from '../upgrade-refusal';
import { mergeStats, sumInvalidated } from './admin-merge';
import type { RoomProcessPool } from './room-process-pool';

export interface AcceptorOptions {
  readonly pool: RoomProcessPool;
  readonly adminKey: string | undefined;
  readonly staticDir?: string;
  readonly trustedProxies?: readonly string[];
  readonly maxConnectionsPerAddress?: number;
  readonly logger: Logger;
}

export interface Acceptor {
  listen(port: number, host?: string): Promise<ListeningInfo>;
  /** Stops accepting, shuts the room processes down (they finish, store and close their sockets). */
  close(): Promise<void>;
}

export function createAcceptor(options: AcceptorOptions): Acceptor {
  const { pool, logger } = options;
  const trustedProxies = new Set((options.trustedProxies ?? []).map(normalizeAddress));
  const sockets = new AddressConnections(options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, trustedProxies);
  /** What the acceptor itself refused (the room processes count the rest). */
  const acceptorCounters = { rejectedConnects: 0 };

  const onUpgrade = (req: IncomingMessage, duplex: Duplex, head: Buffer): void => {
    const socket = duplex as Socket;
    socket.on('error', () => socket.destroy());
    const url = syncUpgradeURL(req, socket);
    if (url === undefined) return;
    // From a trusted proxy: counted here by the client address it forwards (else it was counted as it connected).
    const proxied = trustedProxies.has(normalizeAddress(socket.remoteAddress ?? 'unknown'));
    const release = proxied ? sockets.hold(clientAddress(req, trustedProxies)) : sockets.handOver(socket);
    if (release === undefined) {
      acceptorCounters.rejectedConnects++;
      refuseUpgrade(socket, 429);
      return;
    }
    // The room's process checks everything else (origin, token, ids) as a single-process server does.
    const request = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, head: head.toString('base64') };
    pool.handOver(url.searchParams.get('roomID') ?? '', request, socket, release);
  };

  async function admin(req: IncomingMessage, pathname: string): Promise<AdminReply> {
    if (!adminAuthorized(options.adminKey, req.headers)) return { status: 401, json: { error: 'Missing or wrong admin key' } };
    let body: string;
    try {
      body = await readAdminBody(req);
    } catch (error) {
      return adminFailure(error);
    }
    const method = req.method ?? 'GET';
    const ask = (i: number) => pool.admin(i, method, pathname, body);
    const all = () => Promise.all(Array.from({ length: pool.count }, (_, i) => ask(i)));
    // Segments as the room process reads them (decoded), so a request is routed as it will be answered.
    let parts: string[];
    try {
      parts = adminPathParts(pathname.slice(ADMIN_PATH.length));
    } catch {
      // Any process answers it 400.
      return ask(0);
    }
    const [head, room] = parts;
    const one = parts.length === 1;
    if (method === 'GET' && head === 'stats' && one) return mergeStats(await all(), pool.stats(), acceptorCounters, process.memoryUsage());
    // Every process reads the same storage: any one that serves lists every room.
    if (method === 'GET' && head === 'rooms' && one) return ask(Math.max(0, pool.serving().indexOf(true)));
    if (method === 'POST' && head === 'invalidate' && one) return sumInvalidated(await all(), pool.serving());
    // One room's: its process (a malformed request gets its answer from any).
    const roomID = head === 'rooms' ? (room === undefined ? roomInBody(body) : room) : undefined;
    return ask(roomID === undefined ? 0 : pool.slotOf(roomID));
  }

  const http = createFrontServer(
    frontHandler({ staticDir: options.staticDir, admin: async (req, res, pathname) => sendReply(res, await admin(req, pathname)) }, logger),
    sockets,
    () => acceptorCounters.rejectedConnects++,
  );
  http.on('upgrade', onUpgrade);

  let closing: Promise<void> | undefined;
  return {
    listen: (port, hostname = '127.0.0.1') => listenOn(http, port, hostname),
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        await pool.stop();
        http.closeAllConnections();
        await stopped;
      })();
      return closing;
    },
  };
}

function roomInBody(body: string): string | undefined {
  try {
    const roomID = (JSON.parse(body) as { roomID?: unknown } | null)?.roomID;
    return typeof roomID === 'string' ? roomID : undefined;
  } catch {
    return undefined;
  }
}
