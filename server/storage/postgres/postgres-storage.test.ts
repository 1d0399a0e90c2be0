import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareKeys } from '../../key-order';
import { dropListeners, sql } from '../../test-support/pg-sql';
import { pollUntil } from '../../test-support/event-loop';
import { startPostgres, type PostgresServer } from '../../test-support/postgres-server';
import { describeStorageContract } from '../storage-contract';
import { RoomClosedError, type ClusterEvent } from '../types';
import { MIGRATIONS, SchemaTooNewError } from './migrations';
import { PostgresStorage, PostgresUnreachableError } from './postgres-storage';

let server: PostgresServer;
let databases = 0;
const opened: PostgresStorage[] = [];

beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close().catch(() => {})));
  await server?.stop();
}, 30_000);

async function freshURL(): Promise<string> {
  return server.createDatabase(`storage_${++databases}`);
}

async function open(url: string, options: Partial<ConstructorParameters<typeof Object>[0]> = {}): Promise<PostgresStorage> {
  const s = await PostgresStorage.open({ connectionString: url, ...options });
  opened.push(s);
  return s;
}

function nextEvent(events: ClusterEvent[], what: (e: ClusterEvent) => boolean): Promise<ClusterEvent> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 10_000;
    const look = () => {
      const found = events.find(what);
      if (found !== undefined) return resolve(found);
      if (Date.now() > deadline) return reject(new Error(`no such event; got ${JSON.stringify(events)}`));
      setTimeout(look, 5);
    };
    look();
  });
}

describeStorageContract('PostgresStorage', async () => open(await freshURL()), { groups: true });

describe('PostgresStorage', () => {
  it('migrates a new database once, and refuses one whose schema is newer than it knows', async () => {
    const url = await freshURL();
    await open(url);
    await open(url);
    expect(await sql(url, 'SELECT version FROM roomsync_schema ORDER BY version')).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
    await sql(url, 'INSERT INTO roomsync_schema (version) VALUES (99)');
    await expect(PostgresStorage.open({ connectionString: url })).rejects.toBeInstanceOf(SchemaTooNewError);
  });

  it('orders keys by UTF-8 bytes, like the client, and keeps values as the exact JSON text', async () => {
    const url = await freshURL();
    const s = await open(url);
    await s.createRoom('r', 0);
    const keys = ['b', 'B', 'é', '\uFFFF', '😀', 'a\u0001', 'a'];
    const json = '{"z":1,"a":[true,null],"__proto__":"x","é":"\\u0000"}';
    await s.commitBatch('r', { baseVersion: 0, version: 1, entries: keys.map((key) => ({ key, json, version: 1 })), clients: [] });
    const rows = await sql<{ key: string; value: string }>(url, "SELECT key, value FROM roomsync_entries WHERE room_id = 'r' ORDER BY key");
    expect(rows.map((r) => r.key)).toEqual([...keys].sort(compareKeys));
    expect(new Set(rows.map((r) => r.value))).toEqual(new Set([json]));
  });

  it('is a clear error when PostgreSQL cannot be reached at start', async () => {
    const error = await PostgresStorage.open({ connectionString: 'postgres://postgres:secret@127.0.0.1:1/none', connectTimeoutMs: 2000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresUnreachableError);
    expect((error as Error).message).toMatch(/^PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none is unreachable: .*ECONNREFUSED/);
  });

  it('reads what changed since a version, and everything once that version is older than the tombstone horizon', async () => {
    const s = await open(await freshURL());
    await s.createRoom('r', 0);
    await s.commitBatch('r', {
      baseVersion: 0,
      version: 1,
      entries: [
        { key: 'a', json: '1', version: 1 },
        { key: 'b', json: '1', version: 1 },
      ],
      clients: [{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 1, userID: 'u' }],
    });
    await s.commitBatch('r', {
      baseVersion: 1,
      version: 2,
      entries: [{ key: 'b', json: undefined, version: 2 }],
      clients: [{ clientID: 'c2', clientGroupID: 'g1', lastMutationID: 1, userID: 'u' }],
    });
    const delta = await s.changesSince('r', 1);
    expect(delta).toMatchObject({ full: false, meta: { version: 2 }, entries: [{ key: 'b', json: undefined, version: 2 }] });
    expect(delta?.clients.map((c) => c.clientID)).toEqual(['c2']);
    expect(await s.changesSince('r', 2)).toMatchObject({ full: false, entries: [], clients: [] });
    await s.commitBatch('r', { baseVersion: 2, version: 3, entries: [{ key: 'c', json: '3', version: 3 }], clients: [], tombstoneHorizon: 2 });
    const full = await s.changesSince('r', 1);
    expect(full?.full).toBe(true);
    expect(full?.entries.map((e) => e.key).sort()).toEqual(['a', 'c']);
    expect(full?.clients.map((c) => c.clientID).sort()).toEqual(['c1', 'c2']);
    expect(await s.changesSince('missing', 0)).toBeUndefined();
  });

  it('runs a batch holding the room lock: another node waits, then sees what was committed', async () => {
    const url = await freshURL();
    const a = await open(url);
    const b = await open(url);
    await a.createRoom('r', 0);
    const lockA = await a.lockRoom('r', 0);
    let bLocked = false;
    const lockingB = b.lockRoom('r', 0).then((l) => ((bLocked = true), l));
    await pollUntil('B to wait for the lock', async () => (await sql(url, 'SELECT 1 FROM pg_locks WHERE NOT granted')).length > 0);
    expect(bLocked).toBe(false);
    await lockA!.commit({ baseVersion: 0, version: 1, entries: [{ key: 'k', json: '"a"', version: 1 }], clients: [] });
    const lockB = (await lockingB)!;
    expect(lockB.changes).toMatchObject({ meta: { version: 1 }, entries: [{ key: 'k', json: '"a"', version: 1 }] });
    await expect(lockB.commit({ baseVersion: 0, version: 1, entries: [], clients: [] })).rejects.toMatchObject({ kind: 'StaleRoom' });
    expect(await a.lockRoom('missing', 0)).toBeUndefined();
  });

  it('commits a batch in one round trip only while the room is at its base version', async () => {
    const url = await freshURL();
    const a = await open(url);
    const b = await open(url);
    await a.createRoom('r', 0);
    const put = (version: number, value: string) => ({ baseVersion: version - 1, version, entries: [{ key: 'k', json: value, version }], clients: [] });
    await a.commitBatch('r', put(1, '"a1"'));
    await expect(b.commitBatch('r', put(1, '"b1"'))).rejects.toMatchObject({ kind: 'StaleRoom' });
    // One that finds the row locked by a batch at its base version waits for it, then sees the room moved on.
    const holder = await a.lockRoom('r', 1);
    const late = b.commitBatch('r', put(2, '"b2"'));
    await pollUntil('the commit to wait for the lock', async () => (await sql(url, "SELECT 1 FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'")).length > 0);
    await holder!.commit(put(2, '"a2"'));
    await expect(late).rejects.toMatchObject({ kind: 'StaleRoom' });
    await expect(a.commitBatch('missing', put(1, '1'))).rejects.toMatchObject({ kind: 'StaleRoom' });
    expect((await a.loadRoom('r'))!.entries).toEqual([{ key: 'k', json: '"a2"', version: 2 }]);
  });

  it('refuses a batch that acknowledges mutations in a room closed meanwhile, without the lock too; a presence-only batch still goes', async () => {
    const url = await freshURL();
    const [a, b] = [await open(url), await open(url)];
    await a.createRoom('r', 0);
    const push = (version: number, lmid: number) => ({
      baseVersion: version - 1,
      version,
      entries: [{ key: 'k', json: String(lmid), version }],
      clients: [{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: lmid }],
    });
    const leave = (version: number) => ({ baseVersion: version - 1, version, entries: [{ key: '_roomsync/presence/c1', json: undefined, version }], clients: [], presenceOnly: true });
    await a.commitBatch('r', push(1, 1));
    // Closed through another node; a has not heard of it (only a wrote the room: it writes without the lock).
    await b.setRoomClosed('r', true);
    await expect(a.commitBatch('r', push(2, 2))).rejects.toBeInstanceOf(RoomClosedError);
    await expect(a.commitBatches!('r', [leave(2), push(3, 2)])).rejects.toBeInstanceOf(RoomClosedError);
    // The version is checked first: a stale batch is stale, closed or not.
    await expect(a.commitBatch('r', push(5, 2))).rejects.toMatchObject({ kind: 'StaleRoom' });
    await a.commitBatch('r', leave(2));
    const stored = (await a.loadRoom('r'))!;
    expect(stored.meta).toMatchObject({ version: 2, closed: true });
    expect(stored.entries.filter((e) => e.json !== undefined)).toEqual([{ key: 'k', json: '1', version: 1 }]);
    expect(stored.clients).toEqual([{ clientID: 'c1', clientGroupID: 'g1', lastMutationID: 1 }]);
    // Opened again: pushes go.
    await b.setRoomClosed('r', false);
    await a.commitBatch('r', push(3, 2));
  });

  it('tells other nodes of committed batches and admin changes, never itself', async () => {
    const url = await freshURL();
    const a = await open(url);
    const b = await open(url);
    const seenA: ClusterEvent[] = [];
    const seenB: ClusterEvent[] = [];
    await a.listen((e) => seenA.push(e));
    await b.listen((e) => seenB.push(e));
    await a.createRoom('r', 0);
    await b.loadRoom('r');
    await a.commitBatch('r', { baseVersion: 0, version: 1, entries: [], clients: [] });
    await nextEvent(seenB, (e) => e.kind === 'room' && e.version === 1);
    await a.setRoomClosed('r', true);
    await a.publish({ kind: 'invalidate', all: false, userID: 'u1' });
    await nextEvent(seenB, (e) => e.kind === 'invalidate');
    expect(seenB).toEqual([
      { kind: 'room', roomID: 'r', version: 1 },
      { kind: 'room', roomID: 'r' },
      { kind: 'invalidate', all: false, userID: 'u1' },
    ]);
    expect(seenA).toEqual([]);
  });

  it('a commit refused as stale sends no hint of a version the room never reached', async () => {
    const url = await freshURL();
    const [a, b, c] = [await open(url), await open(url), await open(url)];
    const seen: ClusterEvent[] = [];
    await c.listen((e) => seen.push(e));
    await a.createRoom('r', 0);
    await c.loadRoom('r');
    const put = (version: number) => ({ baseVersion: version - 1, version, entries: [{ key: 'k', json: String(version), version }], clients: [] });
    await a.commitBatch('r', put(1));
    await expect(b.commitBatches!('r', [put(1), put(2), put(3)])).rejects.toMatchObject({ kind: 'StaleRoom' });
    await a.commitBatch('r', put(2));
    await nextEvent(seen, (e) => e.kind === 'room' && e.version === 2);
    // Notifications arrive in commit order: a hint of the refused group's version 3 would be here by now.
    expect(seen).toEqual([
      { kind: 'room', roomID: 'r', version: 1 },
      { kind: 'room', roomID: 'r', version: 2 },
    ]);
  });

  it('hints a batch only to the nodes holding its room: from its load on, until its poll no longer lists it', async () => {
    const url = await freshURL();
    const [a, b] = [await open(url), await open(url)];
    const seen: ClusterEvent[] = [];
    await b.listen((e) => seen.push(e));
    for (const room of ['held', 'elsewhere']) await a.createRoom(room, 0);
    const put = (version: number) => ({ baseVersion: version - 1, version, entries: [], clients: [] });
    // Held by a alone (its own load does not count): no hint.
    await a.loadRoom('elsewhere');
    await a.commitBatch('elsewhere', put(1));
    await b.loadRoom('held');
    await a.commitBatch('held', put(1));
    await nextEvent(seen, (e) => e.kind === 'room' && e.roomID === 'held' && e.version === 1);
    // b's poll lists no room: the row of a room loaded within the grace period stays, an older one goes.
    await b.holding([], 60_000);
    await a.commitBatch('held', put(2));
    await nextEvent(seen, (e) => e.kind === 'room' && e.version === 2);
    await b.holding([], 0);
    await a.commitBatch('held', put(3));
    // Notifications arrive in commit order: a's publish after the batch arrives, the batch's hint never did.
    await a.publish({ kind: 'room', roomID: 'marker' });
    await nextEvent(seen, (e) => e.kind === 'room' && e.roomID === 'marker');
    expect(seen).toEqual([
      { kind: 'room', roomID: 'held', version: 1 },
      { kind: 'room', roomID: 'held', version: 2 },
      { kind: 'room', roomID: 'marker' },
    ]);
    // Listed again at its poll: hinted again.
    await b.holding(['held'], 60_000);
    await a.commitBatch('held', put(4));
    await nextEvent(seen, (e) => e.kind === 'room' && e.version === 4);
  });

  it('keeps hinting a node that loaded a room again after evicting it, when its poll took the room list while it was evicted', async () => {
    const url = await freshURL();
    const [a, b] = [await open(url), await open(url)];
    const seen: ClusterEvent[] = [];
    await b.listen((e) => seen.push(e));
    await a.createRoom('r', 0);
    await b.loadRoom('r');
    // b held the room long ago, then evicted it; its poll takes its room list (r not in it)...
    await sql(url, "UPDATE roomsync_holders SET held_since = now() - interval '1 hour' WHERE room_id = 'r'");
    // ...r is loaded again meanwhile, and then that poll records the list.
    await b.loadRoom('r');
    await b.holding([], 60_000);
    expect((await sql(url, "SELECT node_id FROM roomsync_holders WHERE room_id = 'r'")).map((r) => r.node_id)).toEqual([b.nodeID]);
    await a.commitBatch('r', { baseVersion: 0, version: 1, entries: [], clients: [] });
    await nextEvent(seen, (e) => e.kind === 'room' && e.roomID === 'r' && e.version === 1);
  });

  it('forgets the rooms of a node not seen for a while', async () => {
    const url = await freshURL();
    const [a, b] = [await open(url), await open(url)];
    await a.createRoom('r', 0);
    await b.loadRoom('r');
    await b.holding(['r'], 60_000);
    const holders = async () => (await sql(url, "SELECT node_id FROM roomsync_holders WHERE room_id = 'r'")).map((r) => r.node_id);
    expect(await holders()).toEqual([b.nodeID]);
    // a's poll with a grace longer than b's absence keeps b's rows; once b was not seen for the grace, they go.
    await a.holding([], 60_000);
    expect(await holders()).toEqual([b.nodeID]);
    await a.holding([], 0);
    expect(await holders()).toEqual([]);
  });

  it('its listener reconnects after losing its connection, and reports it so rooms are checked', async () => {
    const url = await freshURL();
    const a = await open(url);
    const b = await open(url);
    const seen: ClusterEvent[] = [];
    await b.listen((e) => seen.push(e));
    await dropListeners(url);
    await nextEvent(seen, (e) => e.kind === 'resync');
    await a.publish({ kind: 'room', roomID: 'after' });
    await nextEvent(seen, (e) => e.kind === 'room');
  });

  it('gives up waiting for a lock after the lock timeout, and ends a transaction left idle', async () => {
    const url = await freshURL();
    const holder = await open(url, { idleInTransactionTimeoutMs: 300 } as never);
    const waiter = await open(url, { lockTimeoutMs: 100 } as never);
    await holder.createRoom('r', 0);
    const stuck = await holder.lockRoom('r', 0);
    await expect(waiter.lockRoom('r', 0)).rejects.toMatchObject({ kind: 'StorageUnavailable' });
    // The holder's session is ended by PostgreSQL; its commit fails and nothing was written.
    await pollUntil('the idle transaction to be ended', async () => (await sql(url, "SELECT 1 FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'")).length === 0);
    await expect(stuck!.commit({ baseVersion: 0, version: 1, entries: [{ key: 'k', json: '1', version: 1 }], clients: [] })).rejects.toMatchObject({
      kind: 'StorageUnavailable',
    });
    const lock = await waiter.lockRoom('r', 0);
    expect(lock?.changes.meta.version).toBe(0);
    await lock!.release();
  });
});
