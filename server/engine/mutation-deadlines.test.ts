import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { manualTimers } from '../test-support/manual-timers';
import { MutationDeadlines, type Deadline } from './mutation-deadlines';

/** A full garbage collection (V8's gc(), reached without starting node with --expose-gc). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Timers fired by hand, the delays they were armed with, and a clock the test moves. */
function setUp(timeoutMs = 100) {
  const manual = manualTimers();
  const delays: number[] = [];
  const clock = { now: 0 };
  const timers = { ...manual.timers, setTimeout: (fn: () => void, ms: number) => (delays.push(ms), manual.timers.setTimeout(fn, ms)) };
  const deadlines = new MutationDeadlines(timers, timeoutMs, () => clock.now);
  const timedOut: string[] = [];
  const watch = (name: string) => deadlines.add(() => timedOut.push(name));
  const settle = (deadline: Deadline) => deadlines.settled(deadline);
  return { manual, clock, delays, timedOut, watch, settle, deadlines, armed: () => delays.length };
}

describe('MutationDeadlines', () => {
  it('watches many mutations with one timer, none set or cleared per mutation', () => {
    const { watch, settle, armed, manual, timedOut, deadlines } = setUp();
    for (let i = 0; i < 50; i++) settle(watch(`m${i}`));
    expect(armed()).toBe(1);
    expect(deadlines.held).toBe(0);
    // The timer fires for a mutation long done: nothing times out, and nothing is left to watch.
    manual.fireNext();
    expect(timedOut).toEqual([]);
    expect(manual.due()).toBe(false);
  });

  it('fails a mutation still under way when its timeout passed, and then watches the next one for the time it has left', () => {
    const { watch, settle, manual, clock, delays, timedOut } = setUp(100);
    watch('stuck');
    clock.now = 40;
    const later = watch('later');
    clock.now = 100;
    manual.fireNext();
    expect(timedOut).toEqual(['stuck']);
    expect(delays).toEqual([100, 40]);
    settle(later);
    manual.fireNext();
    expect(timedOut).toEqual(['stuck']);
    expect(manual.due()).toBe(false);
  });

  it('fails each late mutation once, in the order they started', () => {
    const { watch, settle, manual, clock, timedOut } = setUp(100);
    watch('a');
    clock.now = 10;
    watch('b');
    settle(watch('c'));
    clock.now = 200;
    while (manual.fireNext());
    expect(timedOut).toEqual(['a', 'b']);
  });

  it('watches a mutation that an onTimeout adds with the one timer, for its whole timeout', () => {
    const { manual, clock, delays, timedOut, deadlines } = setUp(100);
    deadlines.add(() => {
      timedOut.push('first');
      deadlines.add(() => timedOut.push('added'));
    });
    clock.now = 120;
    manual.fireNext();
    expect(timedOut).toEqual(['first']);
    expect(delays).toEqual([100, 100]);
    clock.now = 220;
    manual.fireNext();
    expect(timedOut).toEqual(['first', 'added']);
    expect(manual.due()).toBe(false);
  });

  it('holds only what is under way and what settled after it; a settled one keeps nothing of its mutation', async () => {
    const { watch, settle, deadlines } = setUp(100);
    const oldest = watch('oldest');
    // What a mutator's closure holds (its batch, in the server): collectable once it settled, though its entry waits behind the oldest.
    const watchHolding = () => {
      const batch = { rows: [1, 2, 3] };
      return { deadline: deadlines.add(() => batch.rows.push(4)), batch: new WeakRef(batch) };
    };
    const later = watchHolding();
    settle(later.deadline);
    expect(deadlines.held).toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(later.batch.deref()).toBeUndefined();
    settle(oldest);
    expect(deadlines.held).toBe(0);
  });
});
