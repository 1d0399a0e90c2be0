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

  constructor(private readonly turns: LoopTurns = realLoopTurns) {}

  /** Whether the loop is being kept turning. */
  get hot(): boolean {
    return this.turning;
  }

  /** Keeps the loop turning for `ms` from now (longer if it already was). */
  keep(ms: number): void {
    this.until = Math.max(this.until, this.turns.now() + ms);
    if (this.turning) return;
    this.turning = true;
    this.turns.next(this.turn);
  }

  /** What was due arrived: the loop may sleep again. */
  stop(): void {
    this.until = Number.NEGATIVE_INFINITY;
  }

  private readonly turn = (): void => {
    if (this.turns.now() >= this.until) {
      this.turning = false;
      return;
    }
    this.turns.next(this.turn);
  };
}
