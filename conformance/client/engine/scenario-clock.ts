import type { Clock, TimerHandle, Timers } from '../../../src/connection/environment';
import type { EngineClock } from './engine-clock';

interface Timer {
  readonly id: number;
  readonly at: number;
  readonly callback: () => void;
}

/**
 * The fake clock the client under test gets (wall clock, monotonic clock and
 * timers in one). Time moves only when the engine fires the next timer or
 * jumps forward; the engine lets the client's promise work run in between.
 * (conformance/shared's FakeClock fires timers synchronously in one call,
 * which would run a client's timers back to back without its async work.)
 */
export class ScenarioClock implements Clock, Timers, EngineClock {
  #now = 0;
  #nextID = 1;
  #timers: Timer[] = [];

  now(): number {
    return this.#now;
  }

  monotonicNow(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const timer = { id: this.#nextID++, at: this.#now + Math.max(0, delayMs), callback };
    this.#timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers = this.#timers.filter((timer) => timer.id !== handle);
  }

  /** When the earliest pending timer falls due, if any. */
  nextDueAt(): number | undefined {
    return this.#earliest()?.at;
  }

  /** Moves to the earliest timer's time and fires it. */
  fireNext(): void {
    const timer = this.#earliest();
    if (timer === undefined) return;
    this.#timers = this.#timers.filter((t) => t !== timer);
    this.#now = Math.max(this.#now, timer.at);
    timer.callback();
  }

  /** Jumps forward without firing anything (the caller fired what was due first). */
  jumpTo(ms: number): void {
    this.#now = Math.max(this.#now, ms);
  }

  #earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const timer of this.#timers) if (best === undefined || timer.at < best.at || (timer.at === best.at && timer.id < best.id)) best = timer;
    return best;
  }
}
