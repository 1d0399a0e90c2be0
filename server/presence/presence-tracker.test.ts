import { describe, expect, it } from 'vitest';
import { presenceEntry, presenceKey } from '../../src/presence/presence-entry';
import { FakeClock } from '../../src/connection/testing/fake-clock';
import type { StoredEntry } from '../storage/types';
import type { PresenceChange } from './presence-change';
import { PresenceTracker } from './presence-tracker';

const GRACE_MS = 10_000;

function setup(nodeMayBeAlive?: (node: string) => boolean) {
  const clock = new FakeClock(0);
  const writes: (PresenceChange & { at: number })[] = [];
  const tracker = new PresenceTracker(
    { graceMs: GRACE_MS, nodeID: 'me', timers: clock, ...(nodeMayBeAlive === undefined ? {} : { nodeMayBeAlive }) },
    (change) => writes.push({ ...change, at: clock.now() }),
  );
  return { clock, writes, tracker };
}

const tab = (clientID: string, userID = 'ada') => ({ clientID, userID });

function stored(clientID: string, node: string): StoredEntry {
  return { key: presenceKey(clientID), json: JSON.stringify(presenceEntry(clientID, 'ada', null, node)), version: 1 };
}

describe('the presence tracker of a room', () => {
  it("writes a client's join at its first connection only", () => {
    const { tracker, writes } = setup();
    const a = tab('c1');
    tracker.connected(a);
    tracker.connected({ ...a });
    expect(writes).toEqual([{ kind: 'join', clientID: 'c1', userID: 'ada', node: 'me', at: 0 }]);
  });

  it('writes the leave a grace period after the last connection closed, not before', async () => {
    const { tracker, writes, clock } = setup();
    const a = tab('c1');
    const again = { ...a };
    tracker.connected(a);
    tracker.connected(again);
    tracker.disconnected(a);
    await clock.advance(GRACE_MS * 2);
    expect(writes).toHaveLength(1);
    tracker.disconnected(again);
    expect(tracker.holding).toBe(true);
    await clock.advance(GRACE_MS - 1);
    expect(writes).toHaveLength(1);
    await clock.advance(1);
    expect(writes[1]).toEqual({ kind: 'leave', clientID: 'c1', node: 'me', at: GRACE_MS * 3 });
    expect(tracker.holding).toBe(false);
  });

  it('a reconnect within the grace period writes no leave (its join finds the entry as it was and writes nothing)', async () => {
    const { tracker, writes, clock } = setup();
    const first = tab('c1');
    tracker.connected(first);
    tracker.disconnected(first);
    await clock.advance(2000);
    tracker.connected(tab('c1'));
    expect(tracker.holding).toBe(false);
    await clock.advance(GRACE_MS * 3);
    expect(writes.map((w) => w.kind)).toEqual(['join', 'join']);
  });

  it('counts connections, not clients by name: closing an unknown connection changes nothing', async () => {
    const { tracker, writes, clock } = setup();
    tracker.connected(tab('c1'));
    tracker.disconnected(tab('c1'));
    await clock.advance(GRACE_MS);
    expect(writes.map((w) => w.kind)).toEqual(['join']);
  });

  it('adopts entries found at load: removed after the grace period unless their client connects again', async () => {
    const { tracker, writes, clock } = setup();
    tracker.adopt([stored('back', 'me'), stored('gone', 'me'), stored('earlier-run', 'old-node'), { key: 'todo/1', json: '{}', version: 1 }]);
    expect(tracker.holding).toBe(true);
    await clock.advance(1000);
    tracker.connected(tab('back'));
    await clock.advance(GRACE_MS);
    expect(writes.map(({ kind, clientID, node }) => [kind, clientID, node])).toEqual([
      ['join', 'back', 'me'],
      ['leave', 'gone', 'me'],
      ['leave', 'earlier-run', 'old-node'],
    ]);
  });

  it('leaves the entries of another node that may be alive (a shared storage) to it', async () => {
    const { tracker, writes, clock } = setup(() => true);
    tracker.adopt([stored('theirs', 'other-node'), stored('mine', 'me')]);
    await clock.advance(GRACE_MS);
    expect(writes.map((w) => w.clientID)).toEqual(['mine']);
  });

  it("removes a dead node's entries once the liveness says it is gone, and rejoins its own clients once per client", async () => {
    let alive = true;
    const { tracker, writes, clock } = setup((node) => node !== 'other-node' || alive);
    tracker.adopt([stored('theirs', 'other-node')]);
    alive = false;
    tracker.adopt([stored('theirs', 'other-node')]);
    tracker.connected(tab('c1'));
    tracker.connected(tab('c1'));
    tracker.connected(tab('c2', 'bo'));
    writes.length = 0;
    tracker.rejoin();
    await clock.advance(GRACE_MS);
    expect(writes).toEqual([
      { kind: 'join', clientID: 'c1', userID: 'ada', node: 'me', at: 0 },
      { kind: 'join', clientID: 'c2', userID: 'bo', node: 'me', at: 0 },
      { kind: 'leave', clientID: 'theirs', node: 'other-node', at: GRACE_MS },
    ]);
  });

  it("keeps a node's entries when that node beats again within the grace period (it was only out of reach)", async () => {
    let alive = false;
    const { tracker, writes, clock } = setup((node) => node === 'other-node' && alive);
    tracker.adopt([stored('theirs', 'other-node'), stored('gone', 'dead-node')]);
    await clock.advance(GRACE_MS / 2);
    alive = true;
    await clock.advance(GRACE_MS);
    expect(writes).toEqual([{ kind: 'leave', clientID: 'gone', node: 'dead-node', at: GRACE_MS }]);
  });

  it('stops: no more writes, no timers left', async () => {
    const { tracker, writes, clock } = setup();
    const a = tab('c1');
    tracker.connected(a);
    tracker.disconnected(a);
    tracker.stop();
    tracker.connected(tab('c2'));
    await clock.advance(GRACE_MS);
    expect(writes).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
  });
});
