/**
 * Runs a background task (persist, later refresh) after PERSIST_WAIT_MS of
 * gathering more work, and never within PERSIST_MIN_INTERVAL_MS of the start
 * of the previous run. Requests made while a run is in flight cause one more
 * run after it. flush() runs now (for close()). Timers and clock are injected.
 */
import { PERSIST_MIN_INTERVAL_MS, PERSIST_WAIT_MS } from '../../protocol/constants';

export interface SchedulerTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface SchedulerClock {
  now(): number;
}

export interface PersistSchedulerOptions {
  timers: SchedulerTimers;
  clock: SchedulerClock;
  /** @default PERSIST_WAIT_MS */
  waitMs?: number;
  /** @default PERSIST_MIN_INTERVAL_MS */
  minIntervalMs?: number;
  /** Told about a failed background run (the next schedule() retries). */
  onError?: (error: unknown) => void;
}

export class PersistScheduler {
  readonly #task: () => Promise<void>;
  readonly #timers: SchedulerTimers;
  readonly #clock: SchedulerClock;
  readonly #waitMs: number;
  readonly #minIntervalMs: number;
  readonly #onError: (error: unknown) => void;
  #timer: unknown = undefined;
  /** When the pending timer fires (clock time). */
  #timerAt = Infinity;
  #running: Promise<void> | undefined;
  #rerun = false;
  /** The shortest wait asked for while a run was in flight. */
  #rerunWaitMs = Infinity;
  #lastStart = -Infinity;
  #closed = false;

  constructor(task: () => Promise<void>, options: PersistSchedulerOptions) {
    this.#task = task;
    this.#timers = options.timers;
    this.#clock = options.clock;
    this.#waitMs = options.waitMs ?? PERSIST_WAIT_MS;
    this.#minIntervalMs = options.minIntervalMs ?? PERSIST_MIN_INTERVAL_MS;
    this.#onError = options.onError ?? (() => {});
  }

  /** Asks for a run; cheap to call after every commit. */
  schedule(): void {
    this.#request(this.#waitMs);
  }

  /**
   * Asks for a run as soon as the spacing allows, without the wait for more
   * work (e.g. another tab said it stored something: there is nothing to gather).
   */
  scheduleSoon(): void {
    this.#request(0);
  }

  #request(waitMs: number): void {
    if (this.#closed) return;
    if (this.#running !== undefined) {
      this.#rerun = true;
      this.#rerunWaitMs = Math.min(this.#rerunWaitMs, waitMs);
      return;
    }
    const now = this.#clock.now();
    const delay = Math.max(waitMs, this.#lastStart + this.#minIntervalMs - now);
    if (this.#timer !== undefined) {
      if (now + delay >= this.#timerAt) return;
      this.#cancelTimer();
    }
    this.#timerAt = now + delay;
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      void this.#run().catch(this.#onError);
    }, delay);
  }

  /** Runs now (after any run in flight) and resolves when done; errors reject. */
  async flush(): Promise<void> {
    this.#cancelTimer();
    this.#rerun = false;
    this.#rerunWaitMs = Infinity;
    if (this.#running !== undefined) await this.#running.catch(() => {});
    this.#cancelTimer();
    await this.#run();
  }

  /** Stops scheduling; a run in flight completes. */
  close(): void {
    this.#closed = true;
    this.#cancelTimer();
  }

  #run(): Promise<void> {
    this.#lastStart = this.#clock.now();
    const running = this.#task().finally(() => {
      this.#running = undefined;
      if (this.#rerun) {
        const waitMs = this.#rerunWaitMs;
        this.#rerun = false;
        this.#rerunWaitMs = Infinity;
        this.#request(waitMs);
      }
    });
    this.#running = running;
    return running;
  }

  #cancelTimer(): void {
    if (this.#timer !== undefined) {
      this.#timers.clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#timerAt = Infinity;
    }
  }
}
