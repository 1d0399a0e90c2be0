import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { FakeClock } from '../connection/testing/fake-clock';
import { MemoryKvProvider } from '../kv/memory-provider';
import { Reflect } from '../reflect';
import { PresenceStateError, ReservedMutatorNameError } from './errors';
import type { CheckedPresenceState } from './presence-state';
import type { Presence } from './presence-view';
import { presenceOf } from './reflect-presence';

const clients: Reflect[] = [];
afterEach(async () => {
  for (const r of clients.splice(0)) await r.close();
});

let n = 0;
function local(mutators = {}) {
  const r = new Reflect({ userID: 'ada', roomID: 'room', socketOrigin: null, mutators, logSinks: [], kvStore: new MemoryKvProvider(`reflect-presence-${++n}`) });
  clients.push(r);
  return r;
}

describe('presence on a client', () => {
  it('without a server nobody is listed, not even this client', async () => {
    const r = local();
    r.setPresence({ x: 1 });
    const seen = await new Promise<Presence>((resolve) => r.subscribeToPresence(resolve));
    expect(seen).toEqual({ clients: [], users: [] });
  });

  it('refuses a state that is not JSON or too large, at once', () => {
    const r = local();
    expect(() => r.setPresence(undefined as never)).toThrow(PresenceStateError);
    expect(() => r.setPresence('x'.repeat(10_000))).toThrow(/at most 2048 bytes/);
  });

  it('refuses app mutators under the reserved prefix', () => {
    expect(() => local({ '_roomsync/setPresence': async () => {} })).toThrow(ReservedMutatorNameError);
  });

  it('tabs with the same app mutators stay in one client group (every build registers the built-in mutator alike)', async () => {
    const kvStore = new MemoryKvProvider('reflect-presence-tabs');
    const open = () => {
      const r = new Reflect({ userID: 'ada', roomID: 'tabs', socketOrigin: null, mutators: { a: async () => {} }, logSinks: [], kvStore });
      clients.push(r);
      return r;
    };
    const [one, two] = [open(), open()];
    expect(await two.clientGroupID).toBe(await one.clientGroupID);
  });
});

/**
 * The presence code of a client `r` (its real store and subscriptions), loaded
 * by a loader that fails (the page offline, a chunk gone after a deploy) its
 * first `failures` times; the client it loads records the states it is given.
 */
function presenceLoadingAfter(r: Reflect, failures: number) {
  const clock = new FakeClock(0);
  const t = { clock, loads: 0, errors: [] as string[], sets: [] as ReadonlyJSONValue[] };
  const load = async () => {
    t.loads++;
    if (t.loads <= failures) throw new TypeError('Failed to fetch dynamically imported module');
    const code = await import('./presence-client');
    class RecordingPresenceClient extends code.PresenceClient {
      override set(checked: CheckedPresenceState): void {
        t.sets.push(checked.value);
        super.set(checked);
      }
    }
    return { ...code, PresenceClient: RecordingPresenceClient };
  };
  // Not connected: no state is ever sent, so the store's mutate is never reached.
  const presence = presenceOf(r, { clock, timers: clock }, new Promise(() => {}), (message) => t.errors.push(message), load);
  return { ...t, t, presence };
}

describe('presence code that fails to load', () => {
  it('reports each failure and tries again after a back-off while something waits; only the last state waits, open subscriptions fire once loaded', async () => {
    const { t, presence, clock } = presenceLoadingAfter(local(), 2);
    const seen: Presence[] = [];
    presence.subscribe((p) => seen.push(p));
    const ended: Presence[] = [];
    const end = presence.subscribe((p) => ended.push(p));
    // A cursor moving while the code cannot load: one state waits, not 1,000 calls.
    for (let i = 0; i < 1000; i++) presence.set({ cursor: i });
    await clock.advance(0);
    expect(t.loads).toBe(1);
    expect(t.errors).toEqual(['Could not load the presence code']);

    // Calls during the back-off (1 s) wait for it; the retry after it fails again (reported), the next waits 2 s.
    presence.set({ cursor: 1000 });
    await clock.advance(999);
    expect(t.loads).toBe(1);
    await clock.advance(1);
    expect(t.loads).toBe(2);
    expect(t.errors).toEqual(['Could not load the presence code', 'Could not load the presence code']);
    end();
    await clock.advance(1999);
    expect(t.loads).toBe(2);
    await clock.advance(1);
    expect(t.loads).toBe(3);

    await vi.waitFor(() => expect(seen).toEqual([{ clients: [], users: [] }]));
    expect(t.sets).toEqual([{ cursor: 1000 }]);
    expect(ended).toEqual([]);
    presence.set({ cursor: 1001 });
    expect(t.sets).toEqual([{ cursor: 1000 }, { cursor: 1001 }]);
    expect(t.loads).toBe(3);
    expect(t.errors).toHaveLength(2);
    presence.close();
  });

  it('a set or subscribe after a failure with nothing waiting loads at once; close ends the back-off and loads nothing more', async () => {
    const { t, presence, clock } = presenceLoadingAfter(local(), 2);
    const end = presence.subscribe(() => {});
    end();
    await clock.advance(0);
    expect(t.loads).toBe(1);
    expect(t.errors).toHaveLength(1);
    // Nothing waited, so no retry was scheduled: the next call loads at once.
    expect(clock.pendingTimers).toBe(0);
    presence.set({ x: 1 });
    await clock.advance(0);
    expect(t.loads).toBe(2);
    expect(clock.pendingTimers).toBe(1);
    presence.close();
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(120_000);
    presence.set({ x: 2 });
    presence.subscribe(() => {});
    await clock.advance(0);
    expect(t.loads).toBe(2);
    expect(t.sets).toEqual([]);
  });

  it('a new episode of failures starts again from the first back-off (1 s), not where the last one ended', async () => {
    const { t, presence, clock } = presenceLoadingAfter(local(), 3);
    presence.subscribe(() => {})();
    await clock.advance(0);
    expect(t.loads).toBe(1);
    presence.set({ x: 1 });
    await clock.advance(0);
    expect(t.loads).toBe(2);
    await clock.advance(999);
    expect(t.loads).toBe(2);
    await clock.advance(1);
    expect(t.loads).toBe(3);
    await clock.advance(2000);
    expect(t.loads).toBe(4);
    await vi.waitFor(() => expect(t.sets).toEqual([{ x: 1 }]));
    presence.close();
  });
});
