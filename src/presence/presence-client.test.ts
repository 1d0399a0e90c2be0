import { describe, expect, it } from 'vitest';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { FakeClock } from '../connection/testing/fake-clock';
import { deepEqualJSON } from '../db/json-value';
import { PresenceClient } from './presence-client';
import { presenceEntry, type PresenceEntry } from './presence-entry';
import { checkPresenceState } from './presence-state';
import { PRESENCE_SEND_INTERVAL_MS } from './reflect-presence';
import type { Presence } from './presence-view';

function setup() {
  const clock = new FakeClock(0);
  let pushEntries: ((entries: readonly PresenceEntry[]) => void) | undefined;
  let pushConnected: ((connected: boolean) => void) | undefined;
  const mutated: ReadonlyJSONValue[] = [];
  const errors: string[] = [];
  const client = new PresenceClient({
    self: { clientID: 'me', userID: 'ada' },
    clock,
    timers: clock,
    equalJSON: deepEqualJSON,
    sendIntervalMs: PRESENCE_SEND_INTERVAL_MS,
    watchEntries: (onData) => {
      pushEntries = onData;
      return () => (pushEntries = undefined);
    },
    watchConnected: (onChange) => {
      pushConnected = onChange;
      onChange(false);
      return () => (pushConnected = undefined);
    },
    mutate: async (state) => void mutated.push(state),
    onError: (message) => errors.push(message),
  });
  return {
    client,
    mutated,
    errors,
    entries: (...e: PresenceEntry[]) => pushEntries!(e),
    connected: (c: boolean) => pushConnected!(c),
    get watching() {
      return pushEntries !== undefined;
    },
  };
}

describe('a client\'s presence', () => {
  it('reads the store only once asked (set or subscribe), and calls back only when the view changes', () => {
    const t = setup();
    expect(t.watching).toBe(false);
    const seen: Presence[] = [];
    t.client.subscribe((p) => seen.push(p));
    expect(t.watching).toBe(true);
    t.entries(presenceEntry('me', 'ada', null, 'n'));
    t.entries(presenceEntry('me', 'ada', null, 'n'));
    t.entries(presenceEntry('me', 'ada', null, 'n'), presenceEntry('b', 'bob', null, 'n'));
    expect(seen.map((p) => p.users.map((u) => u.userID))).toEqual([['ada'], ['ada', 'bob']]);
    // A late subscriber gets the current view at once.
    let late: Presence | undefined;
    t.client.subscribe((p) => (late = p));
    expect(late).toBe(seen[1]);
  });

  it("shows this client's state at once and sends it once connected and listed", () => {
    const t = setup();
    const seen: Presence[] = [];
    t.client.subscribe((p) => seen.push(p));
    t.entries(presenceEntry('me', 'ada', null, 'n'));
    t.client.set(checkPresenceState({ x: 1 }));
    expect(seen.at(-1)!.clients[0]!.state).toEqual({ x: 1 });
    expect(t.mutated).toEqual([]);
    t.connected(true);
    expect(t.mutated).toEqual([{ x: 1 }]);
  });

  it('keeps calling the other callbacks when one throws, and reports it', () => {
    const t = setup();
    const seen: Presence[] = [];
    t.client.subscribe(() => {
      throw new Error('app bug');
    });
    t.client.subscribe((p) => seen.push(p));
    t.entries(presenceEntry('me', 'ada', null, 'n'));
    expect(seen).toHaveLength(1);
    expect(t.errors).toEqual(['A presence callback threw']);
  });

  it('closed: stops watching and ignores later states', () => {
    const t = setup();
    t.client.set(checkPresenceState({ x: 1 }));
    t.client.close();
    expect(t.watching).toBe(false);
    t.client.set(checkPresenceState({ x: 2 }));
    expect(t.mutated).toEqual([]);
  });
});
