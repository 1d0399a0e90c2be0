import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { SocketConstructor } from '../../../src/connection/socket';
import { countingWebSocket, type ClientSocketRecord } from './loopback-client-socket';
import { nextTurn, pendingLocalWork, realNow, realPause } from './real-time';
import type { ServerTransport } from './transport';
import { WsServerSocket } from './ws-server-socket';

/** Idle event-loop turns, with nothing in flight and no immediate pending, before the client counts as settled (its own macrotask hops). */
const IDLE_TURNS = 3;
/** Turns spun while frames are in flight before waiting in real milliseconds instead. */
const SPIN_TURNS = 50;
/** The longest one settle waits for loopback I/O (a client that never finishes a handshake, a loaded machine). */
const MAX_SETTLE_MS = 2000;
/** For sockets of a WebSocket the transport did not count (a client that brought its own): real time allowed for the loopback to go quiet. */
const QUIET_MS = 15;
const QUIET_ROUNDS = 2;
/** How long an unmet expectation waits for late loopback frames of such sockets before the fake clock moves on. */
const PATIENCE_MS = 100;
const PATIENCE_POLL_MS = 5;

/**
 * A real `ws` server on 127.0.0.1 playing the scripted server. The client's
 * WebSocket is `ws` too, counting its frames, so the engine knows when
 * nothing is in flight without waiting real time; sockets of another
 * WebSocket fall back to waiting for the loopback to go quiet.
 */
export class WsTransport implements ServerTransport {
  readonly sockets: WsServerSocket[] = [];
  readonly #clientSockets: ClientSocketRecord[] = [];
  readonly WebSocket: SocketConstructor;
  #events = 0;

  private constructor(
    private readonly server: Server,
    readonly socketOrigin: string,
  ) {
    this.WebSocket = countingWebSocket(this.#clientSockets, () => this.#events++);
  }

  static async start(now: () => number): Promise<WsTransport> {
    const server = createServer((_request, response) => response.writeHead(426).end());
    const wss = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => [...protocols][0] ?? false });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const { port } = server.address() as AddressInfo;
    const transport = new WsTransport(server, `ws://127.0.0.1:${port}`);
    server.on('upgrade', (request, raw, head) => {
      const header = request.headers['sec-websocket-protocol'];
      const onEvent = () => transport.#events++;
      const upgrade = (attach: (ws: import('ws').WebSocket) => void) => wss.handleUpgrade(request, raw, head, attach);
      transport.sockets.push(new WsServerSocket(`${transport.socketOrigin}${request.url ?? ''}`, typeof header === 'string' ? header : null, now(), raw, upgrade, now, onEvent));
      onEvent();
    });
    return transport;
  }

  async settle(): Promise<void> {
    const deadline = realNow() + MAX_SETTLE_MS;
    let seen = this.#events;
    let idle = 0;
    let spins = 0;
    while (idle < IDLE_TURNS && realNow() < deadline) {
      if (this.#uncounted()) return this.#settleQuietly(deadline);
      await (spins < SPIN_TURNS ? nextTurn() : realPause(1));
      if (this.#events !== seen || !this.#nothingInFlight() || pendingLocalWork() > 0) {
        seen = this.#events;
        idle = 0;
        spins++;
      } else {
        idle++;
        spins = 0;
      }
    }
  }

  async beforeTimeMoves(done: () => boolean): Promise<void> {
    if (!this.#uncounted()) return;
    for (let waited = 0; waited < PATIENCE_MS && !done(); waited += PATIENCE_POLL_MS) await realPause(PATIENCE_POLL_MS);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Every frame both ways has arrived, every open and close has been seen on both sides. */
  #nothingInFlight(): boolean {
    const pairs = this.#pairs();
    if (pairs === undefined) return false;
    return pairs.every(([client, server]) => (server === undefined ? client.closed : settledPair(client, server)));
  }

  /** A socket the server got that no counted client socket explains: the client brought its own WebSocket. */
  #uncounted(): boolean {
    return this.#pairs() === undefined;
  }

  /** Client sockets (of this origin) with the server's socket of the same URL, in order; undefined when the server has one no client socket explains. */
  #pairs(): [ClientSocketRecord, WsServerSocket | undefined][] | undefined {
    const servers = [...this.sockets];
    const pairs: [ClientSocketRecord, WsServerSocket | undefined][] = [];
    for (const client of this.#clientSockets) {
      if (!client.href.startsWith(`${this.socketOrigin}/`)) continue;
      const index = servers.findIndex((s) => new URL(s.url).href === client.href);
      pairs.push([client, index < 0 ? undefined : servers.splice(index, 1)[0]]);
    }
    return servers.length === 0 ? pairs : undefined;
  }

  async #settleQuietly(deadline: number): Promise<void> {
    let quiet = 0;
    while (quiet < QUIET_ROUNDS && realNow() < deadline) {
      const before = this.#events;
      await realPause(QUIET_MS);
      quiet = this.#events === before ? quiet + 1 : 0;
    }
  }
}

function settledPair(client: ClientSocketRecord, server: WsServerSocket): boolean {
  if (server.droppedByServer) return client.closed;
  if (client.closed || server.closedByClientAt !== undefined) return client.closed && server.closedByClientAt !== undefined;
  if (!server.upgraded) return true;
  return client.opened && client.sent === server.frames.length && server.delivered === client.received;
}
