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
    const yielded = deferred.pop()!;
    expect(yielded.delayMs).toBe(0);
    yielded.resume();
    other.begin();
    advance(25);
    void hog.check();
    // 35 ms used of a 30 ms budget, another room waiting: held back to the end of the 100 ms window.
    const held = deferred.pop()!;
    expect(held.delayMs).toBe(65);
    held.resume();
    other.end();
    advance(10);
    void hog.check();
    expect(deferred.pop()!.delayMs).toBe(0);
  });

  it('hands every check during a wait the same promise, so what was checked resumes after the wait, in check order', async () => {
    const { clock, deferred, advance } = fakeClock();
    const room = new RoomPacer(new ThreadPace(clock, options));
    room.begin();
    advance(10);
    const order: number[] = [];
    const waits = [room.check(), room.check(), room.check()];
    expect(waits[0]).toBeInstanceOf(Promise);
    expect(new Set(waits).size).toBe(1);
    expect(deferred).toHaveLength(1);
    const resumed = Promise.all(waits.map((w, i) => w!.then(() => order.push(i))));
    deferred.pop()!.resume();
    await resumed;
    expect(order).toEqual([0, 1, 2]);
    // The wait over, a new slice starts.
    expect(room.check()).toBeUndefined();
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
