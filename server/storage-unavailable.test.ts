import { afterEach, describe, expect, it } from 'vitest';
import { STORAGE_RETRY_MAX_MS } from './storage-retry';
import { turnsUntil as until } from './test-support/event-loop';
import { FlakySharedStorage } from './test-support/flaky-shared-storage';
import { manualTimers } from './test-support/manual-timers';
import { uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

/** Far beyond the retries this test looks at, so the poll's timer (and a mutation's deadline) never comes first. */
const FAR_MS = 600_000;
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
    t = await startTestServer({ storage, timers: clock.timers, clock: { now: () => clock.now() }, clusterPollIntervalMs: FAR_MS, mutatorTimeoutMs: FAR_MS });
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
