/**
 * Runs `task` at once when asked, then at most once per `intervalMs` while
 * asks keep coming (one trailing run gathers every ask of the interval).
 */
import type { TimerHandle, Timers } from '../connection/environment';

export class Throttle {
  readonly #timers: Timers;
  readonly #intervalMs: number;
  readonly #task: () => void;
  #timer: TimerHandle | undefined;
  #asked = false;

  constructor(timers: Timers, intervalMs: number, task: () => void) {
    this.#timers = timers;
    this.#intervalMs = intervalMs;
    this.#task = task;
  }

  request(): void {
    if (this.#timer !== undefined) {
      this.#asked = true;
      return;
    }
    this.#task();
    this.#arm();
  }

  cancel(): void {
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#asked = false;
  }

  #arm(): void {
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = undefined;
      if (!this.#asked) return;
      this.#asked = false;
      this.#task();
      this.#arm();
    }, this.#intervalMs);
  }
}
