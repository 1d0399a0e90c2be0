/** A monotonic clock and a way to continue later, for slicing work in one thread. */
export interface PaceClock {
  /** Monotonic milliseconds. */
  now(): number;
  /** Runs `resume` after other pending work (delayMs 0) or after delayMs. */
  defer(resume: () => void, delayMs: number): void;
}

export const realPaceClock: PaceClock = {
  now: () => performance.now(),
  defer: (resume, delayMs) => (delayMs <= 0 ? setImmediate(resume) : setTimeout(resume, delayMs)),
};

export interface PaceOptions {
  /** Work of one room runs at most this long before yielding. */
  readonly sliceMs: number;
  /** CPU a room may use per window while other rooms of its thread wait. */
  readonly roomBudgetMs: number;
  readonly windowMs: number;
}

/** The rooms of one thread that are running a batch now. */
export class ThreadPace {
  busy = 0;
  constructor(
    readonly clock: PaceClock,
    readonly options: PaceOptions,
  ) {}
}

/**
 * Slices one room's work: `check()` returns a promise when the room has run
 * for a slice (await it to let other rooms and sockets go first), and holds a
 * room that spent its CPU budget for the window back until the window ends,
 * while other rooms of the thread have work.
 */
export class RoomPacer {
  private sliceStart = 0;
  private windowStart = 0;
  private used = 0;
  private running = false;
  /** The wait of a slice that is over, until it ends: every check meanwhile waits for it too. */
  private waiting: Promise<void> | undefined;

  constructor(private readonly thread: ThreadPace) {}

  begin(): void {
    if (this.running) return;
    this.running = true;
    this.thread.busy++;
    this.sliceStart = this.thread.clock.now();
  }

  end(): void {
    if (!this.running) return;
    this.running = false;
    this.thread.busy--;
    this.account(this.thread.clock.now());
  }

  /**
   * Undefined while the slice goes on. Once it is over, the same promise to
   * every caller until the wait ends, so that work checked during the wait
   * resumes after it, in the order it was checked (a mutator's unawaited
   * writes land in call order).
   */
  check(): Promise<void> | undefined {
    if (this.waiting !== undefined) return this.waiting;
    const { clock, options } = this.thread;
    const now = clock.now();
    if (!this.running || now - this.sliceStart < options.sliceMs) return undefined;
    this.account(now);
    const overBudget = this.used >= options.roomBudgetMs && this.thread.busy > 1;
    const delay = overBudget ? Math.max(0, this.windowStart + options.windowMs - now) : 0;
    this.waiting = new Promise<void>((resolve) =>
      clock.defer(() => {
        this.waiting = undefined;
        this.sliceStart = clock.now();
        resolve();
      }, delay),
    );
    return this.waiting;
  }

  private account(now: number): void {
    if (now - this.windowStart >= this.thread.options.windowMs) {
      this.windowStart = now;
      this.used = 0;
    }
    this.used += now - this.sliceStart;
    this.sliceStart = now;
  }
}
