import type { Timers } from '../clock';

/** A mutation under way, from `MutationDeadlines.add` until `settled`. */
export interface Deadline {
  readonly at: number;
}

/** `onTimeout` is dropped once the mutation settled or timed out: an entry left in the queue holds nothing of it. */
interface Entry extends Deadline {
  onTimeout: (() => void) | undefined;
}

/**
 * The deadlines of a thread's mutations, all of one timeout, on one timer
 * armed for the oldest under way: a mutation that settles is dropped from the
 * queue instead of clearing a timer (Node re-arms its timer list when the
 * last timer of a duration goes, so a timer set and cleared per mutation
 * costs microseconds on every push). A settled entry behind one still under
 * way waits for it, holding nothing (the mutation's closure would otherwise
 * keep its whole batch alive, into the old generation). When the timer
 * fires, the entry it was armed for is due by the timer's own word (timers
 * fired by hand in tests included), later ones by the clock, and it is armed
 * again for the next one still under way. The timer does not keep the
 * process alive.
 */
export class MutationDeadlines {
  private readonly queue: Entry[] = [];
  private head = 0;
  private armedFor: Entry | undefined;
  /** While the timer's callback runs: a mutation added by an `onTimeout` waits for the one arming at its end. */
  private firing = false;

  constructor(
    private readonly timers: Timers,
    private readonly timeoutMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Watches a mutation from now; `onTimeout` runs once its timeout passed before it settled. */
  add(onTimeout: () => void): Deadline {
    const entry: Entry = { at: this.now() + this.timeoutMs, onTimeout };
    this.queue.push(entry);
    if (this.armedFor === undefined && !this.firing) this.arm(entry, this.timeoutMs);
    return entry;
  }

  /** The mutation settled: its deadline no longer matters. */
  settled(deadline: Deadline): void {
    (deadline as Entry).onTimeout = undefined;
    this.dropSettled();
  }

  /** Entries held: those under way and the settled ones queued behind them. */
  get held(): number {
    return this.queue.length - this.head;
  }

  private dropSettled(): void {
    while (this.head < this.queue.length && this.queue[this.head]!.onTimeout === undefined) this.head++;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }

  private arm(entry: Entry, ms: number): void {
    this.armedFor = entry;
    const handle = this.timers.setTimeout(this.fire, ms) as { unref?: () => void } | undefined;
    handle?.unref?.();
  }

  private readonly fire = (): void => {
    const armedFor = this.armedFor;
    this.armedFor = undefined;
    const now = this.now();
    this.firing = true;
    try {
      while (this.head < this.queue.length) {
        const entry = this.queue[this.head]!;
        const onTimeout = entry.onTimeout;
        if (onTimeout !== undefined && entry !== armedFor && entry.at > now) break;
        this.head++;
        if (onTimeout === undefined) continue;
        entry.onTimeout = undefined;
        onTimeout();
      }
    } finally {
      this.firing = false;
    }
    this.dropSettled();
    const next = this.queue[this.head];
    if (next !== undefined) this.arm(next, Math.max(0, next.at - now));
  };
}
