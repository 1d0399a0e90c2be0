import { describe, expect, it } from 'vitest';
import { RoomPacer, ThreadPace, type PaceClock } from './pacer';

function fakeClock() {
  let now = 0;
  const deferred: { resume: () => void; delayMs: number }[] = [];
  const clock: PaceClock = { now: () => now, defer: (resume, delayMs) => deferred.push({ resume, delayMs }) };
  return { clock, deferred, advance: (ms: number) => (now += ms) };
}

describe('RoomPacer', () => {
  const options = { sliceMs: 10, roomBudgetMs: 30, windowMs: 100 };

  it('yields after each slice; a room over its budget waits for the window to end while another room has work', async () => {
    const { clock, deferred, advance } = fakeClock();
    const thread = new ThreadPace(clock, options);
    const hog = new RoomPacer(thread);
    const other = new RoomPacer(thread);
    hog.begin();
    advance(5);
    expect(hog.check()).toBeUndefined();
    advance(5);
    const first = hog.check();
    expect(first).toBeInstanceOf(Promise);
    expect(deferred.pop()!.delayMs).toBe(0);
    other.begin();
    advance(25);
    void hog.check();
    // 35 ms used of a 30 ms budget, another room waiting: held back to the end of the 100 ms window.
    expect(deferred.pop()!.delayMs).toBe(65);
    other.end();
    advance(10);
    void hog.check();
    expect(deferred.pop()!.delayMs).toBe(0);
  });

  it('does not hold back a room alone in its thread', () => {
    const { clock, deferred, advance } = fakeClock();
    const alone = new RoomPacer(new ThreadPace(clock, options));
    alone.begin();
    advance(50);
    void alone.check();
    expect(deferred.pop()!.delayMs).toBe(0);
  });
});
