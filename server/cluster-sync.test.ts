import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../src/connection/testing/fake-clock';
import { ClusterSync } from './cluster-sync';
import { NodeLiveness } from './presence/node-liveness';
import { StaleRoomError, type BatchCommit, type ClusterEvent, type RoomChanges, type RoomLock, type StoredEntry } from './storage/types';
import { turnsUntil } from './test-support/event-loop';
import { FlakySharedStorage } from './test-support/flaky-shared-storage';
import { uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

/** One room held here with presence; a storage whose beats answer `live` and whose entry reads fail while `failures` lasts. */
function setup() {
  const clock = new FakeClock(0);
  const adopted: StoredEntry[][] = [];
  const warnings: string[] = [];
  let live = new Set(['me', 'other']);
  let failuresLeft = 0;
  const entry: StoredEntry = { key: '_roomsync/presence/c1', json: '{}', version: 1 };
  const room = { roomID: 'r', presence: { adopt: (entries: StoredEntry[]) => adopted.push(entries), rejoin() {} } };
  const ctx = {
    clock,
    timers: clock,
    shuttingDown: false,
    logger: { warn: (message: string) => warnings.push(message) },
    registry: { presence: { nodeID: 'me', liveness: new NodeLiveness() }, heldRooms: () => [room] },
  };
  const storage = {
    beat: async () => live,
    entriesWithPrefix: async () => {
      if (failuresLeft-- > 0) throw new Error('connection terminated');
      return new Map([['r', [entry]]]);
    },
  };
  const sync = new ClusterSync(ctx as never, storage as never, 2000);
  return { sync, adopted, warnings, entry, setLive: (s: Set<string>) => (live = s), failNextReads: (n: number) => (failuresLeft = n) };
}

describe('a node noticing another node gone', () => {
  it('reads the entries again at the next beat when the read after the news failed, then no more', async () => {
    const { sync, adopted, warnings, entry, setLive, failNextReads } = setup();
    await sync.beat();
    adopted.length = 0;
    failNextReads(1);
    setLive(new Set(['me']));
    await sync.beat();
    expect(adopted).toEqual([]);
    expect(warnings).toHaveLength(1);
    await sync.beat();
    expect(adopted).toEqual([[entry]]);
    await sync.beat();
    expect(adopted).toEqual([[entry]]);
  });
});

/**
 * A shared storage in memory that counts what a node reads to follow other
 * nodes (refreshes, apart from the catch-up under a batch's lock), can hold
 * the node's commits, and hands the test the node's listener so it can send
 * the hints another node's batches would.
 */
class WatchedStorage extends FlakySharedStorage {
  /** changesSince calls outside a lock: a room reading what other nodes changed after a hint. */
  refreshes = 0;
  locks = 0;
  loads = 0;
  /** The node's commits (of one batch: alone, or under the room's lock) refused as stale. */
  stale = 0;
  /** Commits of the node waiting for `open()`. */
  held = 0;
  hint: (event: ClusterEvent) => void = () => {};
  private holding: Promise<void> | undefined;
  private release: () => void = () => {};
  private inLock = false;

  override async loadRoom(roomID: string) {
    this.loads++;
    return super.loadRoom(roomID);
  }

  override async changesSince(roomID: string, version: number): Promise<RoomChanges | undefined> {
    if (!this.inLock) this.refreshes++;
    return super.changesSince(roomID, version);
  }

  override async lockRoom(roomID: string, knownVersion: number): Promise<RoomLock | undefined> {
    this.locks++;
    this.inLock = true;
    try {
      return await super.lockRoom(roomID, knownVersion);
    } finally {
      this.inLock = false;
    }
  }

  override async commitBatch(roomID: string, batch: BatchCommit): Promise<void> {
    await this.waitIfHeld();
    try {
      return await super.commitBatch(roomID, batch);
    } catch (error) {
      if (error instanceof StaleRoomError) this.stale++;
      throw error;
    }
  }

  override async commitBatches(roomID: string, batches: readonly BatchCommit[]): Promise<void> {
    await this.waitIfHeld();
    return super.commitBatches(roomID, batches);
  }

  override async listen(onEvent: (event: ClusterEvent) => void): Promise<void> {
    this.hint = onEvent;
  }

  /** The node's commits wait until `open()`. */
  hold(): void {
    this.holding = new Promise((resolve) => (this.release = resolve));
  }

  open(): void {
    this.holding = undefined;
    this.release();
  }

  /** Another node's batch: one key written at the next version (never held). */
  async otherNodeWrites(roomID: string, key: string, value: unknown): Promise<number> {
    const base = (await super.loadRoom(roomID))!.meta.version;
    await super.commitBatch(roomID, { baseVersion: base, version: base + 1, entries: [{ key, json: JSON.stringify(value), version: base + 1 }], clients: [] });
    return base + 1;
  }

  private async waitIfHeld(): Promise<void> {
    if (this.holding === undefined) return;
    this.held++;
    await this.holding;
  }
}

describe('a node following other nodes\' hints', () => {
  let node: TestServer | undefined;
  afterEach(async () => {
    await node?.close();
    node = undefined;
  });

  async function setup() {
    const storage = new WatchedStorage();
    // No poll during a test: only the hints it sends move the room.
    node = await startTestServer({ storage, clusterPollIntervalMs: 3_600_000 });
    const roomID = uniqueID('room');
    const client = node.connect({ roomID });
    await client.ready();
    return { storage, roomID, client };
  }

  it('reads nothing for a room it does not hold (no load, no query)', async () => {
    const { storage, roomID, client } = await setup();
    const other = uniqueID('elsewhere');
    await storage.createRoom(other, 0);
    const otherVersion = await storage.otherNodeWrites(other, 'k', 1);
    const [loads, refreshes] = [storage.loads, storage.refreshes];
    storage.hint({ kind: 'room', roomID: other, version: otherVersion });
    storage.hint({ kind: 'room', roomID: other });
    // Then a hint for the room it holds: once that one's poke arrived, the others were handled (or ignored).
    const version = await storage.otherNodeWrites(roomID, 'seen', true);
    storage.hint({ kind: 'room', roomID, version });
    await client.until(() => client.state.get('seen') === true, 'the held room\'s hint');
    expect(storage.loads).toBe(loads);
    expect(storage.refreshes).toBe(refreshes + 1);
  });

  it('reads once per hint of a version it has not reached while its room is idle, and pokes', async () => {
    const { storage, roomID, client } = await setup();
    const before = storage.refreshes;
    const v1 = await storage.otherNodeWrites(roomID, 'a', 1);
    storage.hint({ kind: 'room', roomID, version: v1 });
    await client.until(() => client.state.get('a') === 1, 'a');
    // A hint for a version it has: nothing to read.
    storage.hint({ kind: 'room', roomID, version: v1 });
    const v2 = await storage.otherNodeWrites(roomID, 'b', 2);
    storage.hint({ kind: 'room', roomID, version: v2 });
    await client.until(() => client.state.get('b') === 2, 'b');
    expect(storage.refreshes).toBe(before + 2);
  });

  it('reads nothing after a hint when a batch queued before it caught up with that version under the room\'s lock', async () => {
    const { storage, roomID, client } = await setup();
    // The node's own batch is being stored while another node writes the room and hints it.
    storage.hold();
    const mine = client.mutate('put', { key: 'mine', value: 1 });
    await turnsUntil(() => storage.held > 0);
    const theirs = await storage.otherNodeWrites(roomID, 'theirs', 2);
    const before = storage.refreshes;
    storage.hint({ kind: 'room', roomID, version: theirs });
    storage.open();
    // Refused as stale, the batch runs again under the lock, after catching up with `theirs`; the hint's turn comes after.
    await client.acked(mine);
    await client.until(() => client.state.get('theirs') === 2 && client.state.get('mine') === 1, 'both writes');
    // A last hint, so the one before has surely had its turn.
    const last = await storage.otherNodeWrites(roomID, 'last', 3);
    storage.hint({ kind: 'room', roomID, version: last });
    await client.until(() => client.state.get('last') === 3, 'last');
    expect(storage.locks).toBe(1);
    expect(storage.refreshes).toBe(before + 1);
  });

  it('runs a batch under the room\'s lock on the state caught up with what the lock read, and pokes the catch-up first', async () => {
    const { storage, roomID, client } = await setup();
    const v1 = await storage.otherNodeWrites(roomID, 'n', 10);
    storage.hint({ kind: 'room', roomID, version: v1 });
    await client.until(() => client.state.get('n') === 10, 'n');
    // Another node wrote lately, so the next batch takes the lock, which reads this write (no hint: nothing else reads it).
    const v2 = await storage.otherNodeWrites(roomID, 'n', 20);
    const [locks, stale, pokes] = [storage.locks, storage.stale, client.pokes.length];
    await client.acked(client.mutate('increment', { key: 'n', delta: 1 }));
    // The catch-up and the batch went to the engine together: the batch ran on the caught-up state, committed at once.
    expect(client.state.get('n')).toBe(21);
    expect(storage.locks).toBe(locks + 1);
    expect(storage.stale).toBe(stale);
    expect(client.pokes.slice(pokes).map((p) => [p.baseCookie, p.cookie])).toEqual([
      [v1, v2],
      [v2, v2 + 1],
    ]);
    expect(client.outOfOrder).toEqual([]);
  });

  it('applies no push after another node closed the room: the batch under the lock finds the close, ends the connections, writes nothing', async () => {
    const { storage, roomID, client } = await setup();
    const v1 = await storage.otherNodeWrites(roomID, 'n', 1);
    storage.hint({ kind: 'room', roomID, version: v1 });
    await client.until(() => client.state.get('n') === 1, 'n');
    // Closed by another node, its notification not here yet: the next batch (locked: another node wrote lately) reads the row.
    await storage.setRoomClosed(roomID, true);
    const locks = storage.locks;
    client.mutate('put', { key: 'late', value: true });
    await client.until(() => client.closed, 'the connection ended');
    expect(client.errors.map(([kind]) => kind)).toEqual(['RoomClosed']);
    expect(storage.locks).toBe(locks + 1);
    const stored = (await storage.loadRoom(roomID))!;
    expect(stored.meta.version).toBe(v1);
    expect(stored.entries.map((e) => e.key)).not.toContain('late');
  });

  it('applies no push after another node closed the room when it writes the room without the lock: the commit is refused as closed', async () => {
    const { storage, roomID, client } = await setup();
    client.mutate('put', { key: 'before', value: 1 });
    await client.acked(1);
    // Only this node wrote the room: its batches go without the lock; the close's notification has not arrived.
    await storage.setRoomClosed(roomID, true);
    const locks = storage.locks;
    client.mutate('put', { key: 'late', value: true });
    await client.until(() => client.closed, 'the connection ended');
    expect(client.errors.map(([kind]) => kind)).toEqual(['RoomClosed']);
    expect(storage.locks).toBe(locks);
    const stored = (await storage.loadRoom(roomID))!;
    expect(stored.entries.map((e) => e.key)).toEqual(['before']);
  });

  it('reads after a hint without a version (a close or delete) even when it is at the latest version', async () => {
    const { storage, roomID, client } = await setup();
    const v = await storage.otherNodeWrites(roomID, 'x', 1);
    storage.hint({ kind: 'room', roomID, version: v });
    await client.until(() => client.state.get('x') === 1, 'x');
    const before = storage.refreshes;
    storage.hint({ kind: 'room', roomID });
    await turnsUntil(() => storage.refreshes === before + 1);
    // More turns: a second read for the same hint would show by now.
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(storage.refreshes).toBe(before + 1);
  });
});
