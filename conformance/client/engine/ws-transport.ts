import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import type { SocketConstructor } from '../../../src/connection/socket';
import type { ServerSocket, ServerTransport } from './transport';

/** Real time allowed for loopback I/O to go quiet; only a wait for I/O, never a check of the client's timing. */
const QUIET_MS = 15;
const QUIET_ROUNDS = 2;
const MAX_SETTLE_ROUNDS = 200;
/** How long an unmet expectation waits for late loopback frames before the fake clock moves on. */
const PATIENCE_MS = 100;
const PATIENCE_POLL_MS = 5;

const realPause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class WsServerSocket implements ServerSocket {
  readonly frames: { text: string; at: number }[] = [];
  closedByClientAt: number | undefined;
  #droppedByServer = false;

  constructor(
    private readonly ws: WebSocket,
    readonly url: string,
    readonly protocol: string | null,
    readonly openedAt: number,
    now: () => number,
    onEvent: () => void,
  ) {
    ws.on('message', (data, isBinary) => {
      this.frames.push({ text: isBinary ? '<binary frame>' : data.toString(), at: now() });
      onEvent();
    });
    ws.on('close', () => {
      if (!this.#droppedByServer) this.closedByClientAt = now();
      onEvent();
    });
    ws.on('error', () => {});
  }

  accept(): void {}

  deliver(text: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
  }

  drop(clean: boolean): void {
    this.#droppedByServer = true;
    if (clean) this.ws.close(1000);
    else this.ws.terminate();
  }
}

/** A real `ws` server on 127.0.0.1 playing the scripted server: proves scenarios hold over real sockets. */
export class WsTransport implements ServerTransport {
  readonly sockets: ServerSocket[] = [];
  readonly WebSocket: SocketConstructor = WebSocket as unknown as SocketConstructor;
  #events = 0;

  private constructor(
    private readonly server: WebSocketServer,
    readonly socketOrigin: string,
  ) {}

  static async start(now: () => number): Promise<WsTransport> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (protocols) => [...protocols][0] ?? false });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    const { port } = server.address() as AddressInfo;
    const transport = new WsTransport(server, `ws://127.0.0.1:${port}`);
    server.on('connection', (ws, request) => {
      const header = request.headers['sec-websocket-protocol'];
      const protocol = typeof header === 'string' ? header : null;
      const onEvent = () => transport.#events++;
      transport.sockets.push(new WsServerSocket(ws, `${transport.socketOrigin}${request.url ?? ''}`, protocol, now(), now, onEvent));
      onEvent();
    });
    return transport;
  }

  /** Waits until no socket event has come for a few quiet rounds. */
  async settle(): Promise<void> {
    let quiet = 0;
    for (let round = 0; round < MAX_SETTLE_ROUNDS && quiet < QUIET_ROUNDS; round++) {
      const before = this.#events;
      await realPause(QUIET_MS);
      quiet = this.#events === before ? quiet + 1 : 0;
    }
  }

  async beforeTimeMoves(done: () => boolean): Promise<void> {
    for (let waited = 0; waited < PATIENCE_MS && !done(); waited += PATIENCE_POLL_MS) await realPause(PATIENCE_POLL_MS);
  }

  async close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
