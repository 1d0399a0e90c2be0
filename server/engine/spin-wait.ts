/**
 * When threads wait for each other's messages by turning their event loops
 * (see HotLoop): the rules that keep the turning to time it pays for.
 */

/** How long a worker woken ahead keeps its event loop turning for the request (a push being read and queued). */
export const WAKE_WINDOW_MS = 0.25;

/** Wakes of a worker in a row that no request followed within the window before its wakes pause. */
export const MAX_UNANSWERED_WAKES = 8;

/** How long a worker's wakes pause after MAX_UNANSWERED_WAKES unanswered ones. */
export const WAKE_BACKOFF_MS = 1000;

/** How long after sending a request the main thread keeps its event loop turning for the answer (a small batch takes ~0.1 ms). */
export const ANSWER_WINDOW_MS = 0.5;

/** Weight of the newest answer in a worker's estimate of how long its answers take. */
const LATENCY_WEIGHT = 0.25;

/**
 * Whether a worker may be woken ahead of a request: not while a wake is
 * still turning, and not for a while after wakes kept going unanswered (a
 * wake costs the worker a whole window of turning; frames that never become
 * requests must not keep it busy).
 */
export class WakeGate {
  /** When the last wake went that no request has followed yet; -Infinity when there is none. */
  private wokenAt = Number.NEGATIVE_INFINITY;
  private unanswered = 0;
  private pausedUntil = Number.NEGATIVE_INFINITY;

  /** Asks to wake at `now`; true when the wake should be sent (it is then counted as sent). */
  wake(now: number): boolean {
    if (now < this.pausedUntil || now - this.wokenAt < WAKE_WINDOW_MS) return false;
    // The wake before went unanswered.
    if (this.wokenAt !== Number.NEGATIVE_INFINITY) this.missed(now);
    if (now < this.pausedUntil) return false;
    this.wokenAt = now;
    return true;
  }

  /** A request went to the worker at `now`: a wake it came within the window of was answered. */
  requested(now: number): void {
    if (this.wokenAt === Number.NEGATIVE_INFINITY) return;
    if (now - this.wokenAt <= WAKE_WINDOW_MS) {
      this.unanswered = 0;
      this.wokenAt = Number.NEGATIVE_INFINITY;
    } else this.missed(now);
  }

  private missed(now: number): void {
    this.wokenAt = Number.NEGATIVE_INFINITY;
    if (++this.unanswered < MAX_UNANSWERED_WAKES) return;
    this.unanswered = 0;
    this.pausedUntil = now + WAKE_BACKOFF_MS;
  }

  /** Whether wakes are paused at `now`. */
  paused(now: number): boolean {
    return now < this.pausedUntil;
  }
}

/** A short moving estimate of how long a worker takes to answer (undefined before its first answer). */
export class LatencyEstimate {
  value: number | undefined;

  add(ms: number): void {
    this.value = this.value === undefined ? ms : this.value + LATENCY_WEIGHT * (ms - this.value);
  }

  /** Whether an answer is likely within the window after its request. */
  get answersWithinWindow(): boolean {
    return this.value === undefined || this.value < ANSWER_WINDOW_MS;
  }
}

/** A request the main thread turns for until its answer is in. */
export interface Outstanding {
  readonly sentAt: number;
  readonly estimate: LatencyEstimate;
  answered: boolean;
}

/**
 * The requests the main thread turns for, oldest first: until when to turn
 * is the end of the window of the newest one still unanswered whose worker
 * still answers within the window. Each request is looked at a bounded
 * number of times (no scan of every outstanding request per answer).
 */
export class AnswerWindows {
  private readonly waiting: Outstanding[] = [];
  private head = 0;

  /** A request was sent that is worth turning for. */
  sent(o: Outstanding): void {
    this.waiting.push(o);
  }

  /** Until when to turn at `now`; undefined (stop turning) when no request worth it is left. */
  deadline(now: number): number | undefined {
    const w = this.waiting;
    // Requests whose window is over, from the oldest: never worth turning for again.
    while (this.head < w.length && (w[this.head]!.answered || w[this.head]!.sentAt + ANSWER_WINDOW_MS <= now)) this.head++;
    // From the newest: answered, or to a worker that has turned slow.
    while (w.length > this.head && (w[w.length - 1]!.answered || !w[w.length - 1]!.estimate.answersWithinWindow)) w.pop();
    if (this.head === w.length || this.head > 1024) {
      w.splice(0, this.head);
      this.head = 0;
    }
    return w.length === 0 ? undefined : w[w.length - 1]!.sentAt + ANSWER_WINDOW_MS;
  }
}

/** Time spent turning event loops to take other threads' messages sooner (admin stats). */
export interface SpinWaitStats {
  readonly enabled: boolean;
  /** Milliseconds the main thread turned waiting for answers. */
  readonly mainThreadMs: number;
  /** Milliseconds the workers turned after wakes (those alive, and those replaced). */
  readonly workersMs: number;
  readonly wakesSent: number;
  /** Wakes not sent because the worker's wakes were paused after going unanswered. */
  readonly wakesPaused: number;
}
