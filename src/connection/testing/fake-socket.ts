import type { Downstream } from '../../protocol/messages';
import type { ErrorKind } from '../../protocol/generated/types';
import type { SocketCloseEvent, SocketConstructor, SocketLike, SocketMessageEvent } from '../socket';

const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 3;

/** One in-memory socket: the client side is SocketLike, the test plays the server. */
export class FakeSocket implements SocketLike {
  readonly url: string;
  readonly protocols: string | string[] | undefined;
  readyState = CONNECTING;
  /** What a real socket reports as queued and not yet sent; tests set it. */
  bufferedAmount = 0;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: SocketMessageEvent) => void) | null = null;
  onclose: ((event: SocketCloseEvent) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  /** Frames the client sent, as text. */
  readonly sent: string[] = [];
  /** Set when the client closed the socket. */
  closedByClient: { code: number | undefined; reason: string | undefined } | null = null;

  readonly openedAt: number;

  constructor(url: string, protocols?: string | string[], openedAt = 0) {
    this.url = url;
    this.protocols = protocols;
    this.openedAt = openedAt;
  }

  get params(): URLSearchParams {
    return new URL(this.url).searchParams;
  }

  get wsid(): string {
    return this.params.get('wsid') ?? '';
  }

  /** The client's frames, parsed. */
  get messages(): unknown[] {
    return this.sent.map((text) => JSON.parse(text) as unknown);
  }

  send(data: string): void {
    if (this.readyState !== OPEN) throw new Error('FakeSocket: not open');
    this.sent.push(data);
  }

  close(code?: number, reason?: string): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    this.closedByClient = { code, reason };
    const onclose = this.onclose;
    queueMicrotask(() => onclose?.({ code: code ?? 1005, reason: reason ?? '', wasClean: true }));
  }

  // ---- the server's side ----

  accept(): void {
    this.readyState = OPEN;
    this.onopen?.({});
  }

  /** Opens the socket (if needed) and sends `connected` echoing the client's wsid. */
  connect(wsid: string = this.wsid): void {
    if (this.readyState === CONNECTING) this.accept();
    this.deliver(['connected', { wsid }]);
  }

  deliver(message: Downstream): void {
    this.deliverText(JSON.stringify(message));
  }

  deliverText(text: string): void {
    this.onmessage?.({ data: text });
  }

  error(kind: ErrorKind, text: string = kind): void {
    if (this.readyState === CONNECTING) this.accept();
    this.deliver(['error', kind, text]);
  }

  /** The server goes away: abruptly (no close frame) or cleanly. */
  drop(clean = false, code = clean ? 1000 : 1006): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    if (!clean) this.onerror?.({});
    this.onclose?.({ code, reason: '', wasClean: clean });
  }
}

/** Records every socket the client opens. `WebSocket` is the constructor to inject. */
export class FakeSocketServer {
  readonly sockets: FakeSocket[] = [];
  readonly WebSocket: SocketConstructor;

  constructor(now: () => number = () => 0) {
    const sockets = this.sockets;
    this.WebSocket = class extends FakeSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, now());
        sockets.push(this);
      }
    };
  }

  /** When each socket was opened (ms on the injected clock). */
  get openedAt(): number[] {
    return this.sockets.map((socket) => socket.openedAt);
  }

  get last(): FakeSocket {
    const socket = this.sockets.at(-1);
    if (socket === undefined) throw new Error('No socket was opened');
    return socket;
  }
}
