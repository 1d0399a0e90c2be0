/** The server's source of time, injected so tests can control it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}
