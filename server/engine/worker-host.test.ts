import { afterEach, describe, expect, it } from 'vitest';
import type { StoredRoom } from '../storage/types';
import { EngineLostError } from './engine-types';
import { MAX_UNANSWERED_WAKES, WAKE_BACKOFF_MS, WAKE_WINDOW_MS } from './spin-wait';
import { testWorkerHostOptions } from '../test-support/worker-host-options';
import { WorkerEngineHost, type WorkerHostOptions } from './worker-host';

const stored: StoredRoom = { meta: { roomID: 'r', version: 0, closed: false, tombstoneHorizon: 0, createdAt: 0 }, entries: [], clients: [] };

let hosts: WorkerEngineHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.map((h) => h.shutdown()));
  hosts = [];
});

/** A real host with one real worker; the clock and the spare-core reading are the test's. */
async function host(options: Partial<WorkerHostOptions> = {}) {
  const clock = { now: 0 };
  const h = new WorkerEngineHost(testWorkerHostOptions(clock, options));
  hosts.push(h);
  await h.ready();
  await h.open('r', stored);
  return { h, clock };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('WorkerEngineHost: waking and waiting turning', () => {
  it('wakes an idle worker ahead of a request, once per window', async () => {
    const { h, clock } = await host();
    h.prewake('r');
    h.prewake('r');
    expect(h.spinStats().wakesSent).toBe(1);
    clock.now += WAKE_WINDOW_MS / 2;
    await h.stats('r');
    clock.now += 1;
    h.prewake('r');
    expect(h.spinStats().wakesSent).toBe(2);
  });

  it('sends no wake while a request is pending, for a room not open, or when no core is spare', async () => {
    let spare = true;
    const { h } = await host({ hasSpareCore: () => spare });
    const pending = h.stats('r');
    h.prewake('r');
    expect(h.spinStats().wakesSent).toBe(0);
    await pending;
    h.prewake('no such room');
    expect(h.spinStats().wakesSent).toBe(0);
    spare = false;
    h.prewake('r');
    expect(h.spinStats().wakesSent).toBe(0);
    spare = true;
    h.prewake('r');
    expect(h.spinStats().wakesSent).toBe(1);
  });

  it(`stops waking a worker for a while after ${MAX_UNANSWERED_WAKES} wakes no request followed`, async () => {
    const { h, clock } = await host();
    for (let i = 0; i < 50; i++) {
      h.prewake('r');
      clock.now += 1;
    }
    expect(h.spinStats().wakesSent).toBe(MAX_UNANSWERED_WAKES);
    expect(h.spinStats().wakesPaused).toBeGreaterThan(0);
    clock.now += WAKE_BACKOFF_MS;
    h.prewake('r');
    expect(h.spinStats().wakesSent).toBe(MAX_UNANSWERED_WAKES + 1);
  });

  it('the main thread stops turning once no answer is due, and turns no more while idle', async () => {
    const { h, clock } = await host();
    const answer = h.stats('r');
    expect(h.turning).toBe(true);
    await answer;
    await tick();
    expect(h.turning).toBe(false);
    const turned = h.spinStats().mainThreadMs;
    clock.now += 100;
    await tick();
    expect(h.spinStats().mainThreadMs).toBe(turned);
  });

  it('shutdown fails what a worker had not answered and stops the turning, though no time passed', async () => {
    const { h } = await host();
    const answer = h.stats('r').then(
      () => 'answered',
      (error: unknown) => error,
    );
    expect(h.turning).toBe(true);
    await h.shutdown();
    expect(await answer).toBeInstanceOf(EngineLostError);
    await tick();
    expect(h.turning).toBe(false);
  });

  it('the main thread waits asleep when no core is spare', async () => {
    let spare = true;
    const { h } = await host({ hasSpareCore: () => spare });
    await tick();
    spare = false;
    const answer = h.stats('r');
    expect(h.turning).toBe(false);
    await answer;
    spare = true;
    const next = h.stats('r');
    expect(h.turning).toBe(true);
    await next;
  });

  it('waits asleep for a worker whose answers take longer than the window', async () => {
    const { h, clock } = await host();
    // Each answer takes 5 ms by the test's clock.
    for (let i = 0; i < 3; i++) {
      const answer = h.stats('r');
      clock.now += 5;
      await answer;
    }
    await tick();
    const last = h.stats('r');
    expect(h.turning).toBe(false);
    await last;
  });

  it('with spinWait false, no thread turns and no wake goes', async () => {
    const { h } = await host({ spinWait: false, now: () => performance.now() });
    for (let i = 0; i < 5; i++) {
      h.prewake('r');
      expect(h.turning).toBe(false);
      await h.stats('r');
    }
    expect(h.spinStats()).toEqual({ enabled: false, mainThreadMs: 0, workersMs: 0, wakesSent: 0, wakesPaused: 0 });
  });

  it('reports the time the worker turned after a wake', async () => {
    const { h } = await host({ now: () => performance.now() });
    h.prewake('r');
    expect(h.spinStats().wakesSent).toBe(1);
    // The worker's window ends by its own clock; its total shows once it rests.
    await h.stats('r');
    for (let i = 0; i < 1000 && h.spinStats().workersMs === 0; i++) await h.stats('r');
    expect(h.spinStats().workersMs).toBeGreaterThan(0);
  });
});
