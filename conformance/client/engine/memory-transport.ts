import type { SocketCloseEvent, SocketConstructor, SocketLike, SocketMessageEvent } from '../../../src/connection/socket';
import type { ServerSocket, ServerTransport } from './transport';

const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 3;
const ABRUPT_CLOSE_CODE = 1006;
const NORMAL_CLOSE_CODE = 1000;
const NO_STATUS_CODE = 1005;
/** Macrotask turns per settle: enough for chains that hop through a macrotask once or twice. */
const SETTLE_TURNS = 3;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A socket held entirely in memory: the client side is SocketLike, the engine plays the server. */
class MemorySocket implements SocketLike, ServerSocket {
  readyState = CONNECTING;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: SocketMessageEvent) => void) | null = null;
  onclose: ((event: SocketCloseEvent) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly frames: { text: string; at: number }[] = [];
  closedByClientAt: number | undefined;
  readonly protocol: string | null;
  readonly openedAt: number;

  constructor(
    readonly url: string,
    protocols: string | string[] | undefined,
    private readonly now: () => number,
  ) {
    this.protocol = protocols === undefined ? null : Array.isArray(protocols) ? protocols.join(', ') : protocols;
    this.openedAt = now();
  }

  // ---- the client's side ----

  send(data: string): void {
    if (this.readyState === CONNECTING) throw new Error('MemorySocket: send before open');
    if (this.readyState !== OPEN) return;
    this.frames.push({ text: String(data), at: this.now() });
  }

  close(code?: number, reason?: string): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    this.closedByClientAt = this.now();
    const onclose = this.onclose;
    queueMicrotask(() => onclose?.({ code: code ?? NO_STATUS_CODE, reason: reason ?? '', wasClean: true }));
  }

  // ---- the server's side ----

  accept(): void {
    if (this.readyState !== CONNECTING) return;
    this.readyState = OPEN;
    this.onopen?.({});
  }

  deliver(text: string): void {
    if (this.readyState === CONNECTING) this.accept();
    if (this.readyState !== OPEN) return;
    this.onmessage?.({ data: text });
  }

  drop(clean: boolean): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    if (!clean) this.onerror?.({});
    this.onclose?.({ code: clean ? NORMAL_CLOSE_CODE : ABRUPT_CLOSE_CODE, reason: '', wasClean: clean });
  }
}

/** Sockets in memory: deterministic, no I/O. */
export class MemoryTransport implements ServerTransport {
  readonly socketOrigin = 'ws://scripted-server.test';
  readonly sockets: ServerSocket[] = [];
  readonly WebSocket: SocketConstructor;

  constructor(now: () => number) {
    const sockets = this.sockets;
    this.WebSocket = class extends MemorySocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, now);
        sockets.push(this);
      }
    };
  }

  async settle(): Promise<void> {
    for (let i = 0; i < SETTLE_TURNS; i++) await nextTurn();
  }

  /** Nothing is in flight in memory once settled. */
  async beforeTimeMoves(): Promise<void> {}

  async close(): Promise<void> {}
}
