import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';

/** One client socket passing through the proxy. */
export interface ProxiedConnection {
  /** The connect path and query as the client sent them. */
  readonly pathAndQuery: string;
  readonly query: URLSearchParams;
  /** Frames the server sent on this connection so far (before rewriting). */
  downstreamCount: number;
}

/** How a broken variant bends the traffic. Each hook returns the frames to forward instead (none to drop). */
export interface ProxyHooks {
  rewriteConnectPath?(pathAndQuery: string): string;
  upstream?(text: string, connection: ProxiedConnection): readonly string[];
  downstream?(text: string, connection: ProxiedConnection): readonly string[];
}

export interface RunningProxy {
  /** ws://127.0.0.1:PORT */
  readonly url: string;
  close(): Promise<void>;
}

const CLOSE_NORMAL = 1000;
/** Close codes that may not be sent in a close frame. */
const RESERVED_CLOSE_CODES = new Set([1005, 1006, 1015]);

/**
 * A man-in-the-middle WebSocket proxy in front of a real server: it accepts a
 * client, opens the same connect request upstream (same subprotocol) and
 * passes frames both ways through the hooks. Test tooling only.
 */
export async function startProxy(targetOrigin: string, hooks: ProxyHooks = {}): Promise<RunningProxy> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  server.on('connection', (client: WebSocket, request: IncomingMessage) => {
    const pathAndQuery = request.url ?? '/';
    const connection: ProxiedConnection = {
      pathAndQuery,
      query: new URL(pathAndQuery, 'ws://proxy.invalid').searchParams,
      downstreamCount: 0,
    };
    const forwardedPath = hooks.rewriteConnectPath?.(pathAndQuery) ?? pathAndQuery;
    const upstream = new WebSocket(`${targetOrigin.replace(/\/+$/, '')}${forwardedPath}`, client.protocol ? [client.protocol] : []);
    const pending: string[] = [];
    upstream.on('open', () => {
      for (const text of pending.splice(0)) upstream.send(text);
    });
    upstream.on('message', (data) => {
      const text = data.toString();
      const out = hooks.downstream?.(text, connection) ?? [text];
      connection.downstreamCount++;
      for (const frame of out) client.send(frame);
    });
    upstream.on('close', (code, reason) => closeQuietly(client, code, reason.toString()));
    upstream.on('error', () => closeQuietly(client, CLOSE_NORMAL, 'upstream error'));
    upstream.on('unexpected-response', (_req, response) => {
      response.resume();
      closeQuietly(client, CLOSE_NORMAL, `upstream answered HTTP ${response.statusCode}`);
    });
    client.on('message', (data) => {
      const text = data.toString();
      for (const frame of hooks.upstream?.(text, connection) ?? [text]) {
        if (upstream.readyState === WebSocket.OPEN) upstream.send(frame);
        else pending.push(frame);
      }
    });
    client.on('close', () => closeQuietly(upstream, CLOSE_NORMAL, ''));
    client.on('error', () => closeQuietly(upstream, CLOSE_NORMAL, ''));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}

function closeQuietly(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === WebSocket.CLOSED || socket.readyState === WebSocket.CLOSING) return;
  if (socket.readyState === WebSocket.CONNECTING) {
    socket.terminate();
    return;
  }
  socket.close(RESERVED_CLOSE_CODES.has(code) ? CLOSE_NORMAL : code, reason);
}
