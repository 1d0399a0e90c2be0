import { describe, expect, it } from 'vitest';
import { FakeClock } from '../connection/testing/fake-clock';
import type { ReadonlyJSONValue } from '../db/transaction-types';
import { deepEqualJSON } from '../db/json-value';
import { presenceEntry } from './presence-entry';
import { PresenceSender } from './presence-sender';
import { checkPresenceState } from './presence-state';
import { PRESENCE_SEND_INTERVAL_MS } from './reflect-presence';

function setup() {
  const clock = new FakeClock(0);
  const sent: { state: ReadonlyJSONValue; at: number }[] = [];
  const sender = new PresenceSender({ clock, timers: clock, equalJSON: deepEqualJSON, sendIntervalMs: PRESENCE_SEND_INTERVAL_MS }, (s) => sent.push({ state: s.value, at: clock.now() }));
  const entry = (state: ReadonlyJSONValue) => sender.setEntry(presenceEntry('me', 'ada', state, 'n1'));
  const set = (state: ReadonlyJSONValue) => sender.setDesired(checkPresenceState(state));
  return { clock, sent, sender, entry, set };
}

describe('sending the presence state', () => {
  it('waits until connected and listed by the server, then sends the latest state once', async () => {
    const { sender, sent, entry, set } = setup();
    set({ x: 1 });
    set({ x: 2 });
    expect(sent).toEqual([]);
    sender.setConnected(true);
    expect(sent).toEqual([]);
    entry(null);
    expect(sent).toEqual([{ state: { x: 2 }, at: 0 }]);
    // The optimistic write shows the state: nothing more to send.
    entry({ x: 2 });
    expect(sent).toHaveLength(1);
  });

  it('sends at most once per PRESENCE_SEND_INTERVAL_MS, and the last state always goes', async () => {
    const { clock, sender, sent, entry, set } = setup();
    sender.setConnected(true);
    entry(null);
    for (let x = 1; x <= 10; x++) {
      set({ x });
      await clock.advance(10);
    }
    await clock.advance(PRESENCE_SEND_INTERVAL_MS);
    expect(sent.map((s) => s.state)).toEqual([{ x: 1 }, { x: 5 }, { x: 10 }]);
    expect(sent.map((s) => s.at)).toEqual([0, 50, 100]);
  });

  it('sends nothing while disconnected; a pending send is dropped and comes back as one send on reconnect', async () => {
    const { clock, sender, sent, entry, set } = setup();
    sender.setConnected(true);
    entry(null);
    set({ x: 1 });
    set({ x: 2 });
    sender.setConnected(false);
    await clock.advance(1000);
    expect(sent.map((s) => s.state)).toEqual([{ x: 1 }]);
    expect(clock.pendingTimers).toBe(0);
    sender.setConnected(true);
    expect(sent.map((s) => s.state)).toEqual([{ x: 1 }, { x: 2 }]);
  });

  /** A state sent and stored, then the connection lost for `awayMs`, then back. */
  async function backAfter(awayMs: number) {
    const t = setup();
    t.sender.setConnected(true);
    t.entry(null);
    t.set({ x: 1 });
    t.entry({ x: 1 });
    t.sender.setConnected(false);
    await t.clock.advance(awayMs);
    t.sender.setConnected(true);
    return t;
  }

  it('after a reconnect within the grace period (the server kept the state) sends nothing', async () => {
    const { sent } = await backAfter(2000);
    expect(sent).toHaveLength(1);
  });

  it('after the server forgot the client (gone longer than the grace period) sends the state again', async () => {
    const { sent, entry } = await backAfter(60_000);
    entry(null);
    expect(sent.map((s) => s.state)).toEqual([{ x: 1 }, { x: 1 }]);
  });

  it('asks a server that does not take the state only once per connection', async () => {
    const { clock, sender, sent, entry, set } = setup();
    sender.setConnected(true);
    entry(null);
    set({ x: 1 });
    // The server skipped it: the next poke brings the entry back without the state.
    for (let i = 0; i < 5; i++) {
      entry(null);
      await clock.advance(PRESENCE_SEND_INTERVAL_MS);
    }
    expect(sent).toHaveLength(1);
  });

  it('stops: no timers left', async () => {
    const { clock, sender, entry, set } = setup();
    sender.setConnected(true);
    entry(null);
    set({ x: 1 });
    set({ x: 2 });
    expect(clock.pendingTimers).toBe(1);
    sender.stop();
    expect(clock.pendingTimers).toBe(0);
  });
});
