import { describe, expect, it } from 'vitest';
import type { Timers } from './clock';
import { WorkerEngineHost } from './engine/worker-host';
import { uniqueID } from './test-support/test-client';
import { startTestServer } from './test-support/test-server';

const MUTATOR_TIMEOUT_MS = 1000;

/** Real timers, except the watchdog's (a quarter of the mutator timeout), which the test fires by hand. */
function manualWatchdog() {
  const looks: (() => void)[] = [];
  const timers: Timers = {
    setTimeout: (cb, ms) => (ms === MUTATOR_TIMEOUT_MS / 4 ? looks.push(cb) : setTimeout(cb, ms)),
    clearTimeout: (h) => (typeof h === 'number' ? undefined : clearTimeout(h as NodeJS.Timeout)),
  };
  return {
    timers,
    /** Fires the pending watchdog looks, as time passing would. */
    fire() {
      for (const look of looks.splice(0)) look();
    },
  };
}

describe('rooms in worker threads', () => {
  it('stops a mutator stuck in `while (true) {}` after the timeout; the server and other rooms keep serving', async () => {
    const watchdog = manualWatchdog();
    const t = await startTestServer({
      mutatorsModule: { url: new URL('./test-support/hostile-mutators.ts', import.meta.url).href },
      roomWorkers: 2,
      mutatorTimeoutMs: MUTATOR_TIMEOUT_MS,
      timers: watchdog.timers,
    });
    const host = t.server.host as WorkerEngineHost;
    const stuckRoom = uniqueID('stuck');
    const otherRoom = uniqueID('other');
    const a = t.connect({ roomID: stuckRoom });
    await a.ready();
    // Connected, never pushed: its binding to carol is not stored yet, and must survive the worker's stop.
    const bystander = t.connect({ roomID: stuckRoom, token: 'carol' });
    await bystander.ready();
    const b = t.connect({ roomID: otherRoom });
    await b.ready();
    expect(host.workerOf(stuckRoom)).not.toBe(host.workerOf(otherRoom));

    a.push([a.mutation('put', { key: 'before', value: 1 }), a.mutation('spin', {}), a.mutation('put', { key: 'after', value: 3 })]);
    // While room A's worker spins, room B (another worker) is served and pings are answered.
    b.mutate('put', { key: 'b', value: 1 });
    await b.acked(1);
    b.sendRaw(JSON.stringify(['ping', {}]));
    await b.until(() => b.messages.some((m) => m[0] === 'pong'));
    expect(a.lmid).toBe(0);

    // Time passes: the watchdog sees the same mutation running at each look and stops the worker.
    while (a.lmid < 3) {
      watchdog.fire();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(Object.fromEntries(a.state)).toEqual({ before: 1, after: 3 });
    const { json } = await t.admin('GET', '/stats');
    expect((json.counters as { workersStopped: number }).workersStopped).toBe(1);
    // The room reloaded in a fresh worker and goes on; so does the other room.
    a.mutate('put', { key: 'later', value: 4 });
    await a.acked(4);
    b.mutate('put', { key: 'b2', value: 2 });
    await b.acked(2);
    const thief = t.connect({ roomID: stuckRoom, token: 'mallory' });
    await thief.ready();
    thief.push([thief.mutation('put', { key: 'x', value: 1 }, 1, bystander.clientID)]);
    await thief.until(() => thief.closed);
    expect(thief.errors).toEqual([['Unauthorized', `Client ${bystander.clientID} belongs to another user`]]);
    await t.close();
  }, 30_000);

  it('gives mutators tx.auth and tx.clientID in a worker', async () => {
    const t = await startTestServer({ mutatorsModule: { url: new URL('./test-support/hostile-mutators.ts', import.meta.url).href }, roomWorkers: 1 });
    const c = t.connect({ roomID: uniqueID('room'), token: 'alice' });
    await c.ready();
    c.mutate('whoami', { key: 'me' });
    await c.acked(1);
    expect(c.state.get('me')).toEqual({ userID: 'alice', clientID: c.clientID });
    await t.close();
  }, 30_000);
});

describe('a mutators module that cannot be loaded', () => {
  it('makes listen fail with the reason, without restarting workers in a loop', async () => {
    const { createServer } = await import('./index');
    const server = createServer({ mutatorsModule: { url: new URL('./test-support/hostile-mutators.ts', import.meta.url).href, exportName: 'missing' }, roomWorkers: 1 });
    await expect(server.listen(0)).rejects.toThrow(/has no export missing holding mutators/);
    await server.close();
  }, 30_000);
});
