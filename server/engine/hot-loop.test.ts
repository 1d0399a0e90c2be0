import { describe, expect, it } from 'vitest';
import { HotLoop, type LoopTurns } from './hot-loop';

function fakeTurns() {
  let now = 0;
  const queued: (() => void)[] = [];
  const turns: LoopTurns = { now: () => now, next: (turn) => void queued.push(turn) };
  /** Runs the turns queued now, `ms` apart; answers how many ran. */
  const run = (ms: number): number => {
    const batch = queued.splice(0);
    for (const turn of batch) {
      now += ms;
      turn();
    }
    return batch.length;
  };
  return { turns, queued, run, advance: (ms: number) => (now += ms) };
}

describe('HotLoop', () => {
  it('keeps asking for the next turn until its window has passed, then stops', () => {
    const { turns, queued, run } = fakeTurns();
    const loop = new HotLoop(turns);
    loop.keep(10);
    expect(loop.hot).toBe(true);
    let ran = 0;
    while (queued.length > 0) ran += run(1);
    // Turns at 1 … 10 ms: the one at 10 finds the window over.
    expect(ran).toBe(10);
    expect(loop.hot).toBe(false);
  });

  it('stops at the next turn once what was due arrived', () => {
    const { turns, queued, run } = fakeTurns();
    const loop = new HotLoop(turns);
    loop.keep(1);
    run(0.1);
    loop.stop();
    expect(run(0.1)).toBe(1);
    expect(queued).toHaveLength(0);
    expect(loop.hot).toBe(false);
  });

  it('a keep while turning extends the window without a second chain of turns', () => {
    const { turns, queued, run, advance } = fakeTurns();
    const loop = new HotLoop(turns);
    loop.keep(10);
    advance(8);
    loop.keep(10);
    expect(queued).toHaveLength(1);
    let ran = 0;
    while (queued.length > 0) ran += run(1);
    // The window now ends at 18 ms: turns at 9 … 18.
    expect(ran).toBe(10);
  });

  it('turns again after it went cold', () => {
    const { turns, queued, run } = fakeTurns();
    const loop = new HotLoop(turns);
    loop.keep(0.1);
    while (queued.length > 0) run(0.1);
    expect(loop.hot).toBe(false);
    loop.keep(0.1);
    expect(loop.hot).toBe(true);
    expect(queued).toHaveLength(1);
  });

  it('keepUntil shortens the window (or ends it when passed) and the time turned is counted', () => {
    const { turns, queued, run, advance } = fakeTurns();
    const rests: number[] = [];
    const loop = new HotLoop(turns, (ms) => rests.push(ms));
    loop.keep(10);
    run(1);
    loop.keepUntil(3);
    let ran = 0;
    while (queued.length > 0) ran += run(1);
    // Turns at 2 and 3: the window ended at 3 ms, not 10.
    expect(ran).toBe(2);
    expect(loop.turnedMs).toBe(3);
    expect(rests).toEqual([3]);
    advance(100);
    loop.keepUntil(50);
    expect(loop.hot).toBe(false);
    expect(queued).toHaveLength(0);
    loop.keep(2);
    expect(loop.turnedMs).toBe(3);
    run(1);
    expect(loop.turnedMs).toBe(4);
    while (queued.length > 0) run(1);
    expect(rests).toEqual([3, 5]);
  });

  it('a loop never kept has turned for no time', () => {
    const { turns, queued } = fakeTurns();
    const loop = new HotLoop(turns);
    loop.stop();
    expect(loop.turnedMs).toBe(0);
    expect(queued).toHaveLength(0);
  });
});
