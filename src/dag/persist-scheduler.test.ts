import { describe, expect, it } from 'vitest';
import { PERSIST_MIN_INTERVAL_MS, PERSIST_WAIT_MS } from '../../protocol/constants';
import { MemoryStore } from '../kv/memory-store';
import { LazyDagStore } from './lazy-store';
import { PersistScheduler } from './persist-scheduler';
import { PersistentDagStore } from './store';

/** A manual clock and timer queue. */
class FakeTime {
  now = 0;
  #next = 1;
  #timers = new Map<number, { at: number; fn: () => void }>();
  readonly clock = { now: () => this.now };
  readonly timers = {
    setTimeout: (fn: () => void, ms: number) => {
      const id = this.#next++;
      this.#timers.set(id, { at: this.now + ms, fn });
      return id;
    },
    clearTimeout: (id: unknown) => {
      this.#timers.delete(id as number);
    },
  };
  get pending() {
    return this.#timers.size;
  }
  /** Moves time forward, firing due timers in order and letting promises settle between them. */
  async advance(ms: number) {
    const end = this.now + ms;
    for (;;) {
      let due: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.#timers) if (e[1].at <= end && (due === undefined || e[1].at < due[1].at)) due = e;
      if (due === undefined) break;
      this.#timers.delete(due[0]);
      this.now = due[1].at;
      due[1].fn();
      for (let i = 0; i < 10; i++) await Promise.resolve();
    }
    this.now = end;
  }
}

function setup() {
  const time = new FakeTime();
  const runs: number[] = [];
  let release: (() => void) | undefined;
  let blocking = false;
  const task = async () => {
    runs.push(time.now);
    if (blocking) await new Promise<void>((r) => (release = r));
  };
  const scheduler = new PersistScheduler(task, { timers: time.timers, clock: time.clock });
  return {
    time,
    runs,
    scheduler,
    block: () => (blocking = true),
    unblock: () => {
      blocking = false;
      release?.();
    },
  };
}

describe('PersistScheduler', () => {
  it('waits PERSIST_WAIT_MS, gathering requests into one run', async () => {
    const { time, runs, scheduler } = setup();
    scheduler.schedule();
    await time.advance(100);
    scheduler.schedule();
    scheduler.schedule();
    await time.advance(PERSIST_WAIT_MS - 101);
    expect(runs).toEqual([]);
    await time.advance(1);
    expect(runs).toEqual([PERSIST_WAIT_MS]);
    await time.advance(10_000);
    expect(runs).toEqual([PERSIST_WAIT_MS]);
  });

  it('runs at most once per PERSIST_MIN_INTERVAL_MS under steady writes', async () => {
    const { time, runs, scheduler } = setup();
    for (let t = 0; t < 5000; t += 50) {
      scheduler.schedule();
      await time.advance(50);
    }
    // Golden trace: first after the wait, then spaced by the minimum interval.
    expect(runs).toEqual([500, 1500, 2500, 3500, 4500]);
    for (let i = 1; i < runs.length; i++) expect(runs[i]! - runs[i - 1]!).toBeGreaterThanOrEqual(PERSIST_MIN_INTERVAL_MS);
  });

  it('a request during a run causes exactly one more run after it', async () => {
    const { time, runs, scheduler, block, unblock } = setup();
    block();
    scheduler.schedule();
    await time.advance(PERSIST_WAIT_MS);
    expect(runs).toEqual([500]);
    scheduler.schedule();
    scheduler.schedule();
    await time.advance(3000);
    expect(runs).toEqual([500]);
    unblock();
    for (let i = 0; i < 10; i++) await Promise.resolve();
    await time.advance(PERSIST_WAIT_MS);
    expect(runs).toEqual([500, 4000]);
  });

  it('flush runs now and cancels the pending timer', async () => {
    const { time, runs, scheduler } = setup();
    scheduler.schedule();
    await time.advance(10);
    await scheduler.flush();
    expect(runs).toEqual([10]);
    expect(time.pending).toBe(0);
    await time.advance(5000);
    expect(runs).toEqual([10]);
  });

  it('reports a failed background run and retries on the next request', async () => {
    const time = new FakeTime();
    const errors: unknown[] = [];
    let fail = true;
    let runs = 0;
    const scheduler = new PersistScheduler(
      async () => {
        runs++;
        if (fail) throw new Error('disk full');
      },
      { timers: time.timers, clock: time.clock, onError: (e) => errors.push(e) },
    );
    scheduler.schedule();
    await time.advance(PERSIST_WAIT_MS);
    expect(errors).toHaveLength(1);
    fail = false;
    scheduler.schedule();
    await time.advance(PERSIST_MIN_INTERVAL_MS);
    expect(runs).toBe(2);
    expect(errors).toHaveLength(1);
  });

  it('close stops scheduling', async () => {
    const { time, runs, scheduler } = setup();
    scheduler.schedule();
    scheduler.close();
    scheduler.schedule();
    await time.advance(10_000);
    expect(runs).toEqual([]);
  });
});

describe('PersistScheduler driving a LazyDagStore', () => {
  it('persists in the background after commits, and flush persists at once', async () => {
    const time = new FakeTime();
    const lazy = new LazyDagStore(new PersistentDagStore(new MemoryStore('scheduler-test')));
    const scheduler = new PersistScheduler(() => lazy.persist(), { timers: time.timers, clock: time.clock });
    lazy.schedulePersists(scheduler);
    const commit = (data: string) =>
      lazy.withWrite(async (w) => {
        const c = w.createChunk(data, []);
        await w.putChunk(c);
        await w.setHead('main', c.hash);
        await w.commit();
      });

    await commit('one');
    expect(lazy.hasUnpersistedChanges).toBe(true);
    await time.advance(PERSIST_WAIT_MS - 1);
    expect(lazy.hasUnpersistedChanges).toBe(true);
    await time.advance(1);
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(lazy.hasUnpersistedChanges).toBe(false);

    await commit('two');
    await scheduler.flush();
    expect(lazy.hasUnpersistedChanges).toBe(false);
    const fresh = new LazyDagStore(new PersistentDagStore(new MemoryStore('scheduler-test')));
    await fresh.withRead(async (r) => expect((await r.mustGetChunk((await r.getHead('main'))!)).data).toBe('two'));
    MemoryStore.drop('scheduler-test');
  });
});
