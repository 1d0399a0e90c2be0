import { afterEach, describe, expect, it } from 'vitest';
import type { Timers } from './clock';
import { STORAGE_RETRY_MAX_MS } from './storage-retry';
import { FlakySharedStorage } from './test-support/flaky-shared-storage';
import { uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

/** Timers fired by hand; the retry waits are the only short ones (idle watch and poll are seconds). */
function manualTimers() {
  let now = 0;
  const pending: { at: number; fn: () => void }[] = [];
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      const t = { at: now + ms, fn };
      pending.push(t);
      return t;
    },
    clearTimeout: (h) => {
      const i = pending.indexOf(h as never);
      if (i !== -1) pending.splice(i, 1);
    },
  };
  return {
    timers,
    now: () => now,
    /** True when a timer is due within `withinMs`. */
    due(withinMs: number): boolean {
      return pending.some((t) => t.at <= now + withinMs);
    },
    /** Fires the earliest timer due within `withinMs`; false when there is none. */
    fireNext(withinMs: number): boolean {
      pending.sort((a, b) => a.at - b.at);
      if (pending.length === 0 || pending[0]!.at > now + withinMs) return false;
      const t = pending.shift()!;
      now = t.at;
      t.fn();
      return true;
    },
  };
}

/** Waits (for sockets and promises, never for a time) until `holds`. */
async function until(holds: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !holds(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!holds()) throw new Error('condition never held');
}
/** Far beyond the retries this test looks at, so the poll's timer never comes first. */
const POLL_MS = 600_000;
let t: TestServer | undefined;
let storage: FlakySharedStorage;
let clock: ReturnType<typeof manualTimers>;
afterEach(async () => {
  // Whatever happened, let a waiting batch finish so the server can close.
  storage.down = false;
  for (let i = 0; i < 5 && clock.fireNext(STORAGE_RETRY_MAX_MS); i++) await until(() => !clock.due(STORAGE_RETRY_MAX_MS));
  await t?.close();
  t = undefined;
});

describe('a shared storage that cannot be reached', () => {
  it('makes a batch wait and retry (50 ms doubling to 2 s), acknowledging nothing until it is stored', async () => {
    clock = manualTimers();
    storage = new FlakySharedStorage();
    t = await startTestServer({ storage, timers: clock.timers, clock: { now: () => clock.now() }, clusterPollIntervalMs: POLL_MS });
    const c = t.connect({ roomID: uniqueID('room') });
    await c.ready();
    storage.down = true;
    c.mutate('increment', { key: 'n', delta: 1 });
    const retriesAt: number[] = [];
    for (let i = 0; i < 8; i++) {
      await until(() => clock.due(STORAGE_RETRY_MAX_MS));
      expect(storage.refused).toBe(i + 1);
      clock.fireNext(STORAGE_RETRY_MAX_MS);
      retriesAt.push(clock.now());
    }
    await until(() => clock.due(STORAGE_RETRY_MAX_MS));
    expect(retriesAt).toEqual([50, 150, 350, 750, 1550, 3150, 5150, 7150]);
    expect(c.lmid).toBe(0);
    expect(c.pokes).toHaveLength(1);
    expect(c.closed).toBe(false);
    storage.down = false;
    expect(clock.fireNext(STORAGE_RETRY_MAX_MS)).toBe(true);
    await c.acked(1);
    expect(c.state.get('n')).toBe(1);
    expect((await storage.listRooms())[0]?.version).toBe(1);
  });
});
