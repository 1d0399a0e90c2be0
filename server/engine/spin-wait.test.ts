import { describe, expect, it } from 'vitest';
import { ANSWER_WINDOW_MS, AnswerWindows, LatencyEstimate, type Outstanding, MAX_UNANSWERED_WAKES, WAKE_BACKOFF_MS, WAKE_WINDOW_MS, WakeGate } from './spin-wait';

describe('WakeGate', () => {
  it('sends one wake per window', () => {
    const gate = new WakeGate();
    expect(gate.wake(0)).toBe(true);
    expect(gate.wake(WAKE_WINDOW_MS / 2)).toBe(false);
    gate.requested(WAKE_WINDOW_MS / 2);
    expect(gate.wake(WAKE_WINDOW_MS / 2 + 0.01)).toBe(true);
  });

  it(`pauses wakes for ${WAKE_BACKOFF_MS} ms after ${MAX_UNANSWERED_WAKES} in a row that no request followed`, () => {
    const gate = new WakeGate();
    let t = 0;
    let sent = 0;
    // Frames that never become requests (invalid ones, say), one per millisecond.
    for (let i = 0; i < 100; i++, t += 1) if (gate.wake(t)) sent++;
    expect(sent).toBe(MAX_UNANSWERED_WAKES);
    expect(gate.paused(t)).toBe(true);
    t = MAX_UNANSWERED_WAKES + WAKE_BACKOFF_MS - 0.5;
    expect(gate.paused(t)).toBe(true);
    t += 0.5;
    expect(gate.paused(t)).toBe(false);
    expect(gate.wake(t)).toBe(true);
  });

  it('wakes answered within the window keep it waking', () => {
    const gate = new WakeGate();
    for (let i = 0; i < 10 * MAX_UNANSWERED_WAKES; i++) {
      const t = i;
      expect(gate.wake(t)).toBe(true);
      // Every other wake unanswered: never K in a row.
      if (i % 2 === 0) gate.requested(t + WAKE_WINDOW_MS / 2);
    }
  });

  it('a request long after a wake does not count as its answer', () => {
    const gate = new WakeGate();
    let sent = 0;
    for (let i = 0; i < 100; i++) {
      if (gate.wake(i * 10)) sent++;
      gate.requested(i * 10 + 5);
    }
    expect(sent).toBe(MAX_UNANSWERED_WAKES);
  });
});

describe('answer windows', () => {
  const estimate = (...ms: number[]) => {
    const e = new LatencyEstimate();
    for (const m of ms) e.add(m);
    return e;
  };

  it('a worker with no answers yet, or fast ones, is turned for; one whose answers took longer than the window is not', () => {
    expect(estimate().answersWithinWindow).toBe(true);
    expect(estimate(0.1, 0.2).answersWithinWindow).toBe(true);
    expect(estimate(2, 3, 2).answersWithinWindow).toBe(false);
    // It follows the answers back down.
    const e = estimate(5);
    for (let i = 0; i < 20; i++) e.add(0.1);
    expect(e.answersWithinWindow).toBe(true);
  });

  it('turns until the last window of a request likely answered in it, and not for the others', () => {
    const fast = estimate(0.1);
    const slow = estimate(3);
    const windows = new AnswerWindows();
    expect(windows.deadline(0)).toBeUndefined();
    const a: Outstanding = { sentAt: 0, estimate: fast, answered: false };
    windows.sent(a);
    expect(windows.deadline(0.1)).toBe(ANSWER_WINDOW_MS);
    const b: Outstanding = { sentAt: 0.2, estimate: fast, answered: false };
    windows.sent(b);
    expect(windows.deadline(0.3)).toBe(0.2 + ANSWER_WINDOW_MS);
    // The newest answered: turn until the older one's window ends, and no longer.
    b.answered = true;
    expect(windows.deadline(0.3)).toBe(ANSWER_WINDOW_MS);
    a.answered = true;
    expect(windows.deadline(0.3)).toBeUndefined();
    // A request to a worker that turned slow since it was sent is not turned for.
    const c: Outstanding = { sentAt: 1, estimate: estimate(0.1), answered: false };
    windows.sent(c);
    expect(windows.deadline(1.1)).toBe(1 + ANSWER_WINDOW_MS);
    for (let i = 0; i < 10; i++) c.estimate.add(5);
    expect(windows.deadline(1.1)).toBeUndefined();
    // A window already over: nothing to turn for.
    windows.sent({ sentAt: 2, estimate: fast, answered: false });
    expect(windows.deadline(2 + ANSWER_WINDOW_MS + 0.1)).toBeUndefined();
    // A request to a worker already slow is not turned for either.
    windows.sent({ sentAt: 3, estimate: slow, answered: false });
    expect(windows.deadline(3.1)).toBeUndefined();
  });
});
