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

/** The process's own clock and timers. */
export const systemClock: Clock = { now: () => Date.now() };
export const systemTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
