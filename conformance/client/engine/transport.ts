import type { SocketConstructor } from '../../../src/connection/socket';

/** One socket the client opened, seen from the scripted server. */
export interface ServerSocket {
  readonly url: string;
  /** The Sec-WebSocket-Protocol the client asked for; null when none. */
  readonly protocol: string | null;
  /** Fake-clock time the client opened it. */
  readonly openedAt: number;
  /** Text frames from the client, in order, with their fake-clock arrival time. */
  readonly frames: readonly { readonly text: string; readonly at: number }[];
  /** Fake-clock time the client closed it, if it did. */
  readonly closedByClientAt: number | undefined;
  /** Completes the upgrade (no-op where the transport accepts on its own). */
  accept(): void;
  /** The server sends a text frame. */
  deliver(text: string): void;
  /** The server ends the socket: with a close frame (clean) or abruptly. */
  drop(clean: boolean): void;
}

/** Where the client's sockets go: in memory, or a real `ws` server on loopback. */
export interface ServerTransport {
  readonly socketOrigin: string;
  /** The constructor injected into the client as its WebSocket. */
  readonly WebSocket: SocketConstructor;
  readonly sockets: readonly ServerSocket[];
  /** Lets the client's pending work and in-flight I/O finish. */
  settle(): Promise<void>;
  /**
   * Before the engine moves the clock past an unmet expectation: waits a while
   * longer for `done` where I/O is real and may be slow (a loaded machine).
   */
  beforeTimeMoves(done: () => boolean): Promise<void>;
  close(): Promise<void>;
}

/** In-memory sockets, or a real `ws` server on loopback. */
export type TransportKind = 'memory' | 'ws';
