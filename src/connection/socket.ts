// A handler type checked bivariantly, so both the DOM WebSocket and ws's class fit.
type Handler<E> = { bivarianceHack(event: E): void }['bivarianceHack'];

export interface SocketMessageEvent {
  readonly data: unknown;
}

export interface SocketCloseEvent {
  readonly code: number;
  readonly reason: string;
  readonly wasClean: boolean;
}

/** The part of the WebSocket API the connection uses. */
export interface SocketLike {
  readonly readyState: number;
  /** Bytes queued by send() and not yet handed to the network (absent in some test doubles). */
  readonly bufferedAmount?: number;
  onopen: Handler<unknown> | null;
  onmessage: Handler<SocketMessageEvent> | null;
  onclose: Handler<SocketCloseEvent> | null;
  onerror: Handler<unknown> | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/** `new WebSocket(url, protocols)`: the browser's WebSocket, ws's WebSocket or a test double. */
export type SocketConstructor = new (url: string, protocols?: string | string[]) => SocketLike;

export const SOCKET_OPEN = 1;

/** Close code sent when the client leaves on purpose. */
export const NORMAL_CLOSURE = 1000;
