import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import type { ServerSocket } from './transport';

/**
 * One socket of the scripted `ws` server. The upgrade waits for accept(), so
 * a scenario can leave it pending, as over in-memory sockets.
 */
export class WsServerSocket implements ServerSocket {
  readonly frames: { text: string; at: number }[] = [];
  closedByClientAt: number | undefined;
  /** Frames the server sent. */
  delivered = 0;
  droppedByServer = false;
  #ws: WebSocket | undefined;

  constructor(
    readonly url: string,
    readonly protocol: string | null,
    readonly openedAt: number,
    private readonly raw: Duplex,
    private readonly upgrade: (attach: (ws: WebSocket) => void) => void,
    private readonly now: () => number,
    private readonly onEvent: () => void,
  ) {
    raw.on('close', () => this.#closedByClient());
    raw.on('error', () => {});
    // Read while the upgrade waits, or a client giving up on it would go unnoticed (nothing else is sent before the 101);
    // the HTTP server's sockets stay half open after the client's end.
    raw.on('end', () => {
      if (this.#ws === undefined) raw.destroy();
    });
    raw.resume();
  }

  get upgraded(): boolean {
    return this.#ws !== undefined;
  }

  accept(): void {
    if (this.#ws !== undefined || this.droppedByServer || this.closedByClientAt !== undefined || this.raw.destroyed) return;
    this.upgrade((ws) => {
      this.#ws = ws;
      ws.on('message', (data, isBinary) => {
        this.frames.push({ text: isBinary ? '<binary frame>' : data.toString(), at: this.now() });
        this.onEvent();
      });
      ws.on('close', () => this.#closedByClient());
      ws.on('error', () => {});
      this.onEvent();
    });
  }

  deliver(text: string): void {
    this.accept();
    if (this.#ws?.readyState !== WebSocket.OPEN) return;
    this.#ws.send(text);
    this.delivered++;
  }

  drop(clean: boolean): void {
    this.droppedByServer = true;
    if (this.#ws === undefined) this.raw.destroy();
    else if (clean) this.#ws.close(1000);
    else this.#ws.terminate();
  }

  terminate(): void {
    this.droppedByServer = true;
    this.#ws?.terminate();
    this.raw.destroy();
  }

  #closedByClient(): void {
    if (!this.droppedByServer && this.closedByClientAt === undefined) this.closedByClientAt = this.now();
    this.onEvent();
  }
}
