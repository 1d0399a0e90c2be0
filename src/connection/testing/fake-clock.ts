import type { Clock, TimerHandle, Timers } from '../environment';

interface Timer {
  readonly id: number;
  readonly at: number;
  readonly callback: () => void;
}

/** Lets every pending promise callback run (one macrotask turn). Not a sleep: no time passes. */
export function flushMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A clock and timers that move only when told. `advance` fires due timers in
 * time order, letting promise callbacks run after each one.
 */
export class FakeClock implements Clock, Timers {
  #now: number;
  #nextID = 1;
  #timers: Timer[] = [];

  constructor(startMs = 0) {
    this.#now = startMs;
  }

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

  get pendingTimers(): number {
    return this.#timers.length;
  }

  /** Moves time forward by `ms`, firing what falls due. */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.#now + ms);
  }

  async advanceTo(targetMs: number): Promise<void> {
    await flushMicrotasks();
    for (;;) {
      const due = this.#nextDue(targetMs);
      if (due === undefined) break;
      this.#timers = this.#timers.filter((timer) => timer !== due);
      this.#now = due.at;
      due.callback();
      await flushMicrotasks();
    }
    this.#now = Math.max(this.#now, targetMs);
  }

  #nextDue(limit: number): Timer | undefined {
    let best: Timer | undefined;
    for (const timer of this.#timers) {
      if (timer.at <= limit && (best === undefined || timer.at < best.at || (timer.at === best.at && timer.id < best.id))) best = timer;
    }
    return best;
  }
}
