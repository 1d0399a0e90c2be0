/** How a hot loop reads the time and asks for its next turn. */
export interface LoopTurns {
  /** Monotonic milliseconds. */
  now(): number;
  /** Runs `turn` on the event loop's next turn, after polling for I/O without waiting. */
  next(turn: () => void): void;
}

/** setImmediate: while one is pending, the event loop polls for I/O without sleeping. */
export const realLoopTurns: LoopTurns = {
  now: () => performance.now(),
  next: (turn) => void setImmediate(turn),
};

/**
 * Keeps a thread's event loop turning, without sleeping, for a short while
 * when a message from another thread is due soon: a thread asleep in its
 * event loop takes tens of microseconds to wake (more on a virtual machine),
 * a turning one takes the message on its next poll. I/O and timers are
 * served as usual meanwhile; only the thread's idle time is spent.
 */
export class HotLoop {
  private until = Number.NEGATIVE_INFINITY;
  private turning = false;
  private startedAt = 0;
  private turnedBefore = 0;

  /** `onRest` is told the total time turned each time the loop stops turning. */
  constructor(
    private readonly turns: LoopTurns = realLoopTurns,
    private readonly onRest?: (turnedMs: number) => void,
  ) {}

  /** Milliseconds the loop has been kept turning in all (its current turning included). */
  get turnedMs(): number {
    return this.turnedBefore + (this.turning ? this.turns.now() - this.startedAt : 0);
  }

  /** Whether the loop is being kept turning. */
  get hot(): boolean {
    return this.turning;
  }

  /** Keeps the loop turning for `ms` from now (longer if it already was). */
  keep(ms: number): void {
    const now = this.turns.now();
    this.until = Math.max(this.until, now + ms);
    this.start(now);
  }

  /** Keeps the loop turning until `until` (monotonic ms) and no longer, or stops it when that has passed. */
  keepUntil(until: number): void {
    this.until = until;
    const now = this.turns.now();
    if (until > now) this.start(now);
  }

  private start(now: number): void {
    if (this.turning) return;
    this.turning = true;
    this.startedAt = now;
    this.turns.next(this.turn);
  }

  /** What was due arrived: the loop may sleep again. */
  stop(): void {
    this.until = Number.NEGATIVE_INFINITY;
  }

  private readonly turn = (): void => {
    const now = this.turns.now();
    if (now >= this.until) {
      this.turning = false;
      this.turnedBefore += now - this.startedAt;
      this.onRest?.(this.turnedBefore);
      return;
    }
    this.turns.next(this.turn);
  };
}
