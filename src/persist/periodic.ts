/**
 * A task run again and again on injected timers: first after `firstDelayMs`,
 * then every `intervalMs` after the previous run ended (runs never overlap).
 * A failing run is reported and the next one still comes.
 */
import type { TimerHandle, Timers } from '../connection/environment';

export interface PeriodicOptions {
  readonly timers: Timers;
  readonly intervalMs: number;
  /** @default intervalMs */
  readonly firstDelayMs?: number;
  readonly onError: (error: unknown) => void;
}

export class Periodic {
  readonly #task: () => Promise<void>;
  readonly #o: PeriodicOptions;
  #timer: TimerHandle | undefined;
  #running: Promise<void> | undefined;
  #stopped = true;

  constructor(task: () => Promise<void>, options: PeriodicOptions) {
    this.#task = task;
    this.#o = options;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#arm(this.#o.firstDelayMs ?? this.#o.intervalMs);
  }

  /** Runs now (unless a run is going on) and starts the interval again from its end. */
  async runNow(): Promise<void> {
    if (this.#running !== undefined) return this.#running;
    this.#disarm();
    await this.#run();
  }

  /** Stops; a run in flight completes. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#disarm();
    await this.#running;
  }

  #arm(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = this.#o.timers.setTimeout(() => {
      this.#timer = undefined;
      void this.#run();
    }, delayMs);
    // Housekeeping must not keep a Node process alive.
    (this.#timer as { unref?: () => void } | undefined)?.unref?.();
  }

  #disarm(): void {
    if (this.#timer !== undefined) this.#o.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #run(): Promise<void> {
    const running = this.#task()
      .catch(this.#o.onError)
      .finally(() => {
        this.#running = undefined;
        this.#arm(this.#o.intervalMs);
      });
    this.#running = running;
    await running;
  }
}
