/**
 * The clock the engine moves: the injected ScenarioClock, or the global fake
 * clock of the public-API path. Times are milliseconds since the scenario began.
 */
export interface EngineClock {
  now(): number;
  /** When the earliest pending timer falls due, if any. */
  nextDueAt(): number | undefined;
  /** Moves to the earliest timer's time and fires it. */
  fireNext(): void;
  /** Jumps forward without firing anything (the caller fired what was due first). */
  jumpTo(ms: number): void;
}
