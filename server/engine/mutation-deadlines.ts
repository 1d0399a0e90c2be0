import type { Timers } from '../clock';

/** A mutation under way: failed by `onTimeout` unless `done` is set before its deadline. */
export interface Deadline {
  /** Set when the mutation settled: its deadline no longer matters. */
  done: boolean;
  readonly at: number;
  readonly onTimeout: () => void;
}

/**
 * The deadlines of a thread's mutations, all of one timeout, on one timer
 * armed for the oldest under way: a mutation that settles leaves its entry
 * behind instead of clearing a timer (Node re-arms its timer list when the
 * last timer of a duration goes, so a timer set and cleared per mutation
 * costs microseconds on every push). When the timer fires, the entry it was
 * armed for is due by the timer's own word (timers fired by hand in tests
 * included), later ones by the clock, and it is armed again for the next
 * one still under way. The timer does not keep the process alive.
 */
export class MutationDeadlines {
  private readonly queue: Deadline[] = [];
  private head = 0;
  private armedFor: Deadline | undefined;

  constructor(
    private readonly timers: Timers,
    private readonly timeoutMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Watches a mutation from now; `onTimeout` runs once its timeout passed while it is not done. */
  add(onTimeout: () => void): Deadline {
    const entry: Deadline = { done: false, at: this.now() + this.timeoutMs, onTimeout };
    this.queue.push(entry);
    if (this.armedFor === undefined) this.arm(entry, this.timeoutMs);
    return entry;
  }

  private arm(entry: Deadline, ms: number): void {
    this.armedFor = entry;
    const handle = this.timers.setTimeout(this.fire, ms) as { unref?: () => void } | undefined;
    handle?.unref?.();
  }

  private readonly fire = (): void => {
    const armedFor = this.armedFor;
    this.armedFor = undefined;
    const now = this.now();
    while (this.head < this.queue.length) {
      const entry = this.queue[this.head]!;
      if (!entry.done && entry !== armedFor && entry.at > now) break;
      this.head++;
      if (entry.done) continue;
      entry.done = true;
      entry.onTimeout();
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    const next = this.queue[this.head];
    if (next !== undefined) this.arm(next, Math.max(0, next.at - now));
  };
}
