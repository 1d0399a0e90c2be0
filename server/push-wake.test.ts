import { afterEach, describe, expect, it } from 'vitest';
import { systemClock, systemTimers } from './clock';
import { WorkerEngineHost } from './engine/worker-host';
import { FailureLog } from './failure-log';
import { silentLogger } from './logger';
import { MAX_WAKE_FRAME_CHARS } from './socket-handler';
import { RoomRegistry } from './room-registry';
import { newCounters } from './stats';
import { MemoryStorage } from './storage/memory-storage';
import { uniqueID, type TestClient } from './test-support/test-client';
import { testWorkerHostOptions } from './test-support/worker-host-options';
import { startTestServer } from './test-support/test-server';

const mutatorsModule = { url: new URL('./test-support/hostile-mutators.ts', import.meta.url).href };

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** A round trip on the socket: whatever the server did with the frames before is done. */
async function roundTrip(c: TestClient): Promise<void> {
  const pongs = c.messages.filter((m) => m[0] === 'pong').length;
  c.sendRaw(JSON.stringify(['ping', {}]));
  await c.until(() => c.messages.filter((m) => m[0] === 'pong').length > pongs);
}

describe('waking a room worker ahead of a push', () => {
  it('only for a small push frame from a connection whose last push-like frame was a valid push', async () => {
    const t = await startTestServer({ mutatorsModule, roomWorkers: 1, hasSpareCore: () => true });
    stops.push(() => t.close());
    const host = t.server.host as WorkerEngineHost;
    const wakes = () => host.spinStats().wakesSent;
    const c = t.connect({ roomID: uniqueID('wake') });
    await c.ready();
    const push = async (value: unknown) => {
      const id = c.mutate('put', { key: 'k', value });
      await c.acked(id);
      await roundTrip(c);
    };

    // The connection's first push: nothing said yet that it pushes valid frames.
    await push(1);
    expect(wakes()).toBe(0);
    await push(2);
    expect(wakes()).toBe(1);

    // An invalid frame after a valid push wakes (it cannot be told apart before it is decoded) …
    c.sendRaw('["push",{"bad":true}]');
    await c.until(() => c.errors.length === 1);
    expect(wakes()).toBe(2);
    // … but the next push-like frames of that connection wake nothing, valid or not,
    c.sendRaw('["push",1]');
    await c.until(() => c.errors.length === 2);
    await push(3);
    expect(wakes()).toBe(2);
    // until a valid push went.
    await push(4);
    expect(wakes()).toBe(3);

    // A large push wakes nothing.
    await push('x'.repeat(MAX_WAKE_FRAME_CHARS));
    expect(wakes()).toBe(3);
  });

  it('never with spinWait false (and no thread turns)', async () => {
    const t = await startTestServer({ mutatorsModule, roomWorkers: 1, hasSpareCore: () => true, spinWait: false });
    stops.push(() => t.close());
    const c = t.connect({ roomID: uniqueID('nospin') });
    await c.ready();
    for (let i = 1; i <= 5; i++) {
      await c.acked(c.mutate('put', { key: 'k', value: i }));
      await roundTrip(c);
    }
    const { json } = await t.admin('GET', '/stats');
    expect((json as { spinWait: unknown }).spinWait).toEqual({ enabled: false, mainThreadMs: 0, workersMs: 0, wakesSent: 0, wakesPaused: 0 });
  });

  it('not for a closed room', async () => {
    const clock = { now: 0 };
    const host = new WorkerEngineHost(testWorkerHostOptions(clock));
    stops.push(() => host.shutdown());
    await host.ready();
    const storage = new MemoryStorage();
    const registry = new RoomRegistry({
      storage,
      host,
      clock: systemClock,
      logger: silentLogger,
      counters: newCounters(),
      failures: new FailureLog(silentLogger, systemClock),
      presence: undefined,
      timers: systemTimers,
    });
    const room = (await registry.get('r', () => {}))!;
    room.expectPush();
    expect(host.spinStats().wakesSent).toBe(1);
    clock.now += 1;
    room.closed = true;
    room.expectPush();
    expect(host.spinStats().wakesSent).toBe(1);
    room.closed = false;
    room.expectPush();
    expect(host.spinStats().wakesSent).toBe(2);
  });
});
