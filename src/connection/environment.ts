import type { SocketConstructor } from './socket';

/** Time as the connection reads it. */
export interface Clock {
  /** Wall-clock milliseconds since the epoch (push and mutation timestamps). */
  now(): number;
  /** Monotonic milliseconds (the connect request's `ts`, durations). */
  monotonicNow(): number;
}

export type TimerHandle = unknown;

export interface Timers {
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** A number in [0, 1), like Math.random. */
export type RandomSource = () => number;

/** Whether the page is visible, and its changes (document.visibilityState in a browser). */
export interface VisibilitySource {
  readonly visible: boolean;
  subscribe(listener: (visible: boolean) => void): () => void;
}

/** Whether the network is up, and its changes (navigator.onLine and online/offline events). */
export interface NetworkSource {
  readonly online: boolean;
  subscribe(listener: (online: boolean) => void): () => void;
}

/** Every piece of the outside world the connection touches. Bound to the browser or Node in default-environment.ts. */
export interface ConnectionEnvironment {
  readonly clock: Clock;
  readonly timers: Timers;
  readonly random: RandomSource;
  readonly WebSocket: SocketConstructor;
  readonly visibility: VisibilitySource;
  readonly network: NetworkSource;
}
