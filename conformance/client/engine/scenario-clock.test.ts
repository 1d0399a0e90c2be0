import { describe, expect, it } from 'vitest';
import { ScenarioClock } from './scenario-clock';

describe('ScenarioClock', () => {
  it('fires timers one at a time in time order (ties in creation order), moving to each one', () => {
    const clock = new ScenarioClock();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`b@${clock.now()}`), 20);
    clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
    clock.setTimeout(() => fired.push(`c@${clock.now()}`), 20);
    const cancelled = clock.setTimeout(() => fired.push('never'), 5);
    clock.clearTimeout(cancelled);
    expect(clock.nextDueAt()).toBe(10);
    clock.fireNext();
    clock.fireNext();
    clock.fireNext();
    expect(fired).toEqual(['a@10', 'b@20', 'c@20']);
    expect(clock.nextDueAt()).toBeUndefined();
  });

  it('jumps without firing and never goes back; wall and monotonic time agree', () => {
    const clock = new ScenarioClock();
    let fired = false;
    clock.setTimeout(() => (fired = true), 100);
    clock.jumpTo(50);
    clock.jumpTo(10);
    expect([clock.now(), clock.monotonicNow(), fired]).toEqual([50, 50, false]);
  });
});
