import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ADMIN_PATH } from './admin-api';
import type { AddressConnections } from './client-address';
import type { ListeningInfo } from './index';

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
