import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ADMIN_PATH } from './admin-api';
import type { AddressConnections } from './client-address';
import type { ListeningInfo } from './index';
import type { Logger } from './logger';
import { parseRequestURL } from './request-url';
import { serveStatic } from './static-files';
import { refuseUpgrade } from './upgrade-refusal';

const SYNC_PATH = '/api/sync/';

/**
 * The HTTP requests of the front: the admin API (`admin`, given its path),
 * the health check, 426 on the sync path, files of `staticDir`, else 404; a
 * request that fails is logged and answered 500.
 */
export function frontHandler(
  routes: { readonly staticDir: string | undefined; admin(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> },
  logger: Logger,
): (req: IncomingMessage, res: ServerResponse) => void {
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const pathname = parseRequestURL(req.url)?.pathname;
    if (pathname === undefined) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad Request');
    if (pathname === ADMIN_PATH || pathname.startsWith(`${ADMIN_PATH}/`)) return routes.admin(req, res, pathname);
    if (pathname === '/healthz') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (pathname.startsWith(SYNC_PATH)) return void res.writeHead(426, { 'content-type': 'text/plain' }).end('Upgrade Required');
    if (routes.staticDir !== undefined && (await serveStatic(routes.staticDir, req, res, pathname))) return;
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
  };
  return (req, res) =>
    void answer(req, res).catch((error: unknown) => {
      logger.error('request failed', { url: req.url, error });
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
}

/** The URL of an upgrade to the sync path; any other is answered 404 here (undefined). */
export function syncUpgradeURL(req: IncomingMessage, socket: Duplex): URL | undefined {
  const url = parseRequestURL(req.url);
  if (url !== undefined && url.pathname.startsWith(SYNC_PATH)) return url;
  refuseUpgrade(socket, 404);
  return undefined;
}

/** How long a client may take to send a request's headers, and the whole request (Node's defaults: 60 s and 5 min). */
const HTTP_HEADERS_TIMEOUT_MS = 10_000;
const HTTP_REQUEST_TIMEOUT_MS = 30_000;
/** How often Node looks for requests past those timeouts (its default: 30 s). */
const HTTP_TIMEOUT_CHECK_MS = 2_000;

/**
 * The HTTP server in front of the rooms: a request whose headers (or body)
 * are not in within the timeouts is dropped, so half-written requests do not
 * hold sockets (slowloris), and each socket is counted by its peer as it
 * connects (one over the cap is closed, `onRefused` told).
 */
export function createFrontServer(handler: (req: IncomingMessage, res: ServerResponse) => void, sockets: AddressConnections, onRefused: () => void): Server {
  const http = createHttpServer({ headersTimeout: HTTP_HEADERS_TIMEOUT_MS, requestTimeout: HTTP_REQUEST_TIMEOUT_MS, connectionsCheckingInterval: HTTP_TIMEOUT_CHECK_MS }, handler);
  http.on('connection', (socket: Socket) => {
    if (sockets.connected(socket)) return;
    onRefused();
    socket.destroy();
  });
  return http;
}

/** Listens on `port` of `hostname` (0: any free port) and says where. */
export function listenOn(http: Server, port: number, hostname: string): Promise<ListeningInfo> {
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, hostname, () => {
      http.off('error', reject);
      const actual = (http.address() as AddressInfo).port;
      const hostPart = hostname.includes(':') ? `[${hostname}]` : hostname;
      resolve({ port: actual, url: `ws://${hostPart}:${actual}`, adminURL: `http://${hostPart}:${actual}${ADMIN_PATH}` });
    });
  });
}
