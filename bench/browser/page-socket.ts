/**
 * A server inside the page for our client's socket (the browser bench):
 * accepts the connection at once, answers pings, reports pushes and sends the
 * pokes the bench asks for. Keeps the socket's cost out of the figures, as
 * Replicache's pusher and poke() are plain calls.
 */
import type { SocketCloseEvent, SocketLike, SocketMessageEvent } from '../../src/connection/socket';
import type { PatchPut } from './page-api';

const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 3;

export class PageServer {
  #socket: PageSocket | undefined;
  #cookie: number | null = null;
  #requests = 0;
  readonly #onPush: (mutationCount: number) => void;

  constructor(onPush: (mutationCount: number) => void) {
    this.#onPush = onPush;
  }

  /** The constructor to hand the client as its WebSocket. */
  get socketClass(): new (url: string, protocols?: string | string[]) => SocketLike {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const server = this;
    return class extends PageSocket {
      constructor(url: string) {
        super(url, server);
        server.#socket = this;
      }
    };
  }

  poke(patch: readonly PatchPut[]): void {
    const baseCookie = this.#cookie;
    const cookie = (baseCookie ?? 0) + 1;
    this.#cookie = cookie;
    this.#socket!.deliver(['poke', { baseCookie, cookie, lastMutationIDChanges: {}, patch, requestID: `poke-${++this.#requests}` }]);
  }

  /** @internal */
  received(frame: string): void {
    const [type, body] = JSON.parse(frame) as [string, { mutations?: unknown[] }];
    if (type === 'ping') this.#socket!.deliver(['pong', {}]);
    else if (type === 'push') this.#onPush(body.mutations?.length ?? 0);
  }
}

class PageSocket implements SocketLike {
  readyState = CONNECTING;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: SocketMessageEvent) => void) | null = null;
  onclose: ((event: SocketCloseEvent) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly #server: PageServer;

  constructor(url: string, server: PageServer) {
    this.#server = server;
    const wsid = new URL(url).searchParams.get('wsid') ?? '';
    setTimeout(() => {
      if (this.readyState !== CONNECTING) return;
      this.readyState = OPEN;
      this.onopen?.({});
      this.deliver(['connected', { wsid }]);
    }, 0);
  }

  send(data: string): void {
    if (this.readyState !== OPEN) throw new Error('PageSocket: not open');
    this.#server.received(data);
  }

  close(code?: number, reason?: string): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    const onclose = this.onclose;
    setTimeout(() => onclose?.({ code: code ?? 1005, reason: reason ?? '', wasClean: true }), 0);
  }

  deliver(message: unknown): void {
    if (this.readyState === OPEN) this.onmessage?.({ data: JSON.stringify(message) });
  }
}
