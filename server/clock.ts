/** The server's source of time, injected so tests can control it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Timers, injected so tests can fire them by hand. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
