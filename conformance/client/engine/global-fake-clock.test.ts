import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_EPOCH_MS, GlobalFakeClock } from './global-fake-clock';
import { nextTurn, realPause } from './real-time';

let clock: GlobalFakeClock | undefined;

afterEach(() => {
  clock?.uninstall();
  clock = undefined;
});

describe('GlobalFakeClock', () => {
  it('fakes the global timers, Date and performance; fires one timer at a time; jumps without firing', () => {
    const realSetTimeout = globalThis.setTimeout;
    clock = GlobalFakeClock.install();
    expect(globalThis.setTimeout).not.toBe(realSetTimeout);
    expect([Date.now(), performance.now(), clock.now()]).toEqual([FAKE_EPOCH_MS, 0, 0]);
    const fired: string[] = [];
    setTimeout(() => fired.push(`b@${clock!.now()}`), 20);
    setTimeout(() => fired.push(`a@${performance.now()}`), 10);
    const cancelled = setTimeout(() => fired.push('never'), 5);
    clearTimeout(cancelled);
    expect(clock.nextDueAt()).toBe(10);
    clock.fireNext();
    expect(fired).toEqual(['a@10']);
    clock.jumpTo(15);
    expect([clock.now(), fired.length, clock.nextDueAt()]).toEqual([15, 1, 20]);
    clock.fireNext();
    expect(fired).toEqual(['a@10', 'b@20']);
    expect(clock.nextDueAt()).toBeUndefined();
    clock.uninstall();
    clock = undefined;
    expect(globalThis.setTimeout).toBe(realSetTimeout);
  });

  it('leaves setImmediate, nextTick and the engine\u2019s real waits alone', async () => {
    clock = GlobalFakeClock.install();
    let ticked = false;
    process.nextTick(() => (ticked = true));
    await nextTurn();
    await realPause(1);
    expect(ticked).toBe(true);
    expect(clock.now()).toBe(0);
  });
});
