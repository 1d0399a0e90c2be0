import { describe, expect, it } from 'vitest';
import { manualTimers } from '../test-support/manual-timers';
import { MutationDeadlines } from './mutation-deadlines';

/** Timers fired by hand, the delays they were armed with, and a clock the test moves. */
function setUp(timeoutMs = 100) {
  const manual = manualTimers();
  const delays: number[] = [];
  const clock = { now: 0 };
  const timers = { ...manual.timers, setTimeout: (fn: () => void, ms: number) => (delays.push(ms), manual.timers.setTimeout(fn, ms)) };
  const deadlines = new MutationDeadlines(timers, timeoutMs, () => clock.now);
  const timedOut: string[] = [];
  const watch = (name: string) => deadlines.add(() => timedOut.push(name));
  return { manual, clock, delays, timedOut, watch, armed: () => delays.length };
}

describe('MutationDeadlines', () => {
  it('watches many mutations with one timer, none set or cleared per mutation', () => {
    const { watch, armed, manual, timedOut } = setUp();
    for (let i = 0; i < 50; i++) watch(`m${i}`).done = true;
    expect(armed()).toBe(1);
    // The timer fires for a mutation long done: nothing times out, and nothing is left to watch.
    manual.fireNext();
    expect(timedOut).toEqual([]);
    expect(manual.due()).toBe(false);
  });

  it('fails a mutation still under way when its timeout passed, and then watches the next one for the time it has left', () => {
    const { watch, manual, clock, delays, timedOut } = setUp(100);
    watch('stuck');
    clock.now = 40;
    const later = watch('later');
    clock.now = 100;
    manual.fireNext();
    expect(timedOut).toEqual(['stuck']);
    expect(delays).toEqual([100, 40]);
    later.done = true;
    manual.fireNext();
    expect(timedOut).toEqual(['stuck']);
    expect(manual.due()).toBe(false);
  });

  it('fails each late mutation once, in the order they started', () => {
    const { watch, manual, clock, timedOut } = setUp(100);
    watch('a');
    clock.now = 10;
    watch('b');
    watch('c').done = true;
    clock.now = 200;
    while (manual.fireNext());
    expect(timedOut).toEqual(['a', 'b']);
  });
});
