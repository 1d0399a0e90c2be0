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
  #running: Promise<void> | undefined;
  #rerun = false;
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
    if (this.#closed) return;
    if (this.#running !== undefined) {
      this.#rerun = true;
      return;
    }
    if (this.#timer !== undefined) return;
    const earliest = this.#lastStart + this.#minIntervalMs - this.#clock.now();
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = undefined;
      void this.#run().catch(this.#onError);
    }, Math.max(this.#waitMs, earliest));
  }

  /** Runs now (after any run in flight) and resolves when done; errors reject. */
  async flush(): Promise<void> {
    this.#cancelTimer();
    this.#rerun = false;
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
        this.#rerun = false;
        this.schedule();
      }
    });
    this.#running = running;
    return running;
  }

  #cancelTimer(): void {
    if (this.#timer !== undefined) {
      this.#timers.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }
}
