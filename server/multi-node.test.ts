import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStorage } from './storage/postgres/postgres-storage';
import { dropListeners, sql } from './test-support/pg-sql';
import { startPostgres, type PostgresServer } from './test-support/postgres-server';
import { TestClient, uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

/** Several server nodes (in this process) on one real PostgreSQL. */
let postgres: PostgresServer;
let databases = 0;
let nodes: TestServer[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterEach(async () => {
  await Promise.all(nodes.map((n) => n.close()));
  nodes = [];
});
afterAll(() => postgres?.stop(), 30_000);

async function cluster(count: number, options: { pollMs?: number } = {}): Promise<{ url: string; nodes: TestServer[] }> {
  const url = await postgres.createDatabase(`nodes_${++databases}`);
  const started: TestServer[] = [];
  for (let i = 0; i < count; i++) {
    const storage = await PostgresStorage.open({ connectionString: url, poolSize: 4 });
    started.push(await startTestServer({ storage, ...(options.pollMs === undefined ? {} : { clusterPollIntervalMs: options.pollMs }) }));
  }
  nodes.push(...started);
  return { url, nodes: started };
}

const entries = (c: TestClient) => Object.fromEntries([...c.state].sort(([a], [b]) => (a < b ? -1 : 1)));

describe('many nodes on one PostgreSQL', () => {
  it('pokes clients of every node, in version order, with the group\'s mutation ids only to the group', async () => {
    const { nodes: [a, b] } = await cluster(2);
    const roomID = uniqueID('room');
    const group = uniqueID('g');
    const onA = a!.connect({ roomID, clientGroupID: group });
    const mateOnB = b!.connect({ roomID, clientGroupID: group });
    const otherOnB = b!.connect({ roomID });
    await Promise.all([onA, mateOnB, otherOnB].map((c) => c.ready()));
    for (let i = 1; i <= 5; i++) onA.mutate('put', { key: `k${i}`, value: i });
    onA.mutate('del', { key: 'k2' });
    await onA.acked(6);
    const pushesOnB = [otherOnB.mutate('increment', { key: 'n', delta: 1 }), otherOnB.mutate('increment', { key: 'n', delta: 2 })];
    await otherOnB.acked(pushesOnB[1]!);
    for (const c of [onA, mateOnB, otherOnB]) await c.until(() => c.state.get('n') === 3 && !c.state.has('k2'), 'both nodes\' writes');
    expect(entries(mateOnB)).toEqual(entries(onA));
    expect(entries(otherOnB)).toEqual(entries(onA));
    for (const c of [onA, mateOnB, otherOnB]) expect(c.outOfOrder).toEqual([]);
    await mateOnB.until(() => mateOnB.pokes.some((p) => p.lastMutationIDChanges[onA.clientID] === 6), 'A\'s ids announced to its group on B');
    expect(otherOnB.pokes.every((p) => !(onA.clientID in p.lastMutationIDChanges))).toBe(true);
  });

  it('checks connects against the database: lmid and baseCookie ahead, a client in another group', async () => {
    const { nodes: [a, b] } = await cluster(2);
    const roomID = uniqueID('room');
    const ids = { clientID: uniqueID('c'), clientGroupID: uniqueID('g') };
    // B holds the room (an old cache) while A moves it on.
    const watcher = b!.connect({ roomID });
    await watcher.ready();
    const c = a!.connect({ roomID, ...ids });
    await c.ready();
    c.mutate('put', { key: 'x', value: 1 });
    c.mutate('put', { key: 'y', value: 2 });
    await c.acked(2);
    const cookie = c.cookie!;
    await c.close();
    const fine = b!.connect({ roomID, ...ids, lmid: 2, baseCookie: cookie });
    await fine.connected();
    expect(fine.errors).toEqual([]);
    await fine.close();
    const lmidAhead = b!.connect({ roomID, ...ids, lmid: 3 });
    await lmidAhead.until(() => lmidAhead.closed);
    expect(lmidAhead.errors[0]?.[1]).toMatch(/Unexpected lmid 3/);
    const cookieAhead = b!.connect({ roomID, ...ids, lmid: 2, baseCookie: cookie + 1 });
    await cookieAhead.until(() => cookieAhead.closed);
    expect(cookieAhead.errors[0]?.[1]).toMatch(/Unexpected baseCookie/);
    const otherGroup = b!.connect({ roomID, clientID: ids.clientID, clientGroupID: uniqueID('g') });
    await otherGroup.until(() => otherGroup.closed);
    expect(otherGroup.errors[0]?.[0]).toBe('InvalidConnectionRequest');
  });

  it('answers a recovery pull on another node from the database', async () => {
    const { nodes: [a, b] } = await cluster(2);
    const roomID = uniqueID('room');
    const closedTab = a!.connect({ roomID });
    const holder = b!.connect({ roomID });
    await Promise.all([closedTab.ready(), holder.ready()]);
    closedTab.mutate('put', { key: 'k', value: 1 });
    await closedTab.acked(1);
    await closedTab.close();
    const rescuer = b!.connect({ roomID });
    await rescuer.ready();
    const requestID = uniqueID('pull');
    rescuer.sendRaw(JSON.stringify(['pull', { clientGroupID: closedTab.clientGroupID, cookie: null, requestID }]));
    await rescuer.until(() => rescuer.messages.some((m) => m[0] === 'pull'), 'the pull answer');
    const answer = rescuer.messages.find((m) => m[0] === 'pull')!;
    expect(answer[1]).toMatchObject({ requestID, lastMutationIDChanges: { [closedTab.clientID]: 1 } });
  });

  it('carries admin close, delete and invalidate to every node', async () => {
    const { nodes: [a, b] } = await cluster(2);
    const roomID = uniqueID('room');
    const onB = b!.connect({ roomID });
    await onB.ready();
    expect((await a!.admin('POST', `/rooms/${roomID}/close`)).status).toBe(200);
    await onB.until(() => onB.closed, 'RoomClosed on B');
    expect(onB.errors).toEqual([['RoomClosed', `Room ${roomID} was closed`]]);
    const refused = b!.connect({ roomID });
    await refused.until(() => refused.closed);
    expect(refused.errors[0]?.[0]).toBe('RoomClosed');
    await a!.admin('POST', `/rooms/${roomID}/open`);
    const again = b!.connect({ roomID });
    await again.ready();
    expect((await a!.admin('DELETE', `/rooms/${encodeURIComponent(roomID)}`)).status).toBe(200);
    await again.until(() => again.closed, 'RoomNotFound on B');
    expect(again.errors).toEqual([['RoomNotFound', roomID]]);
    const user = uniqueID('user');
    const third = b!.connect({ roomID: uniqueID('room'), token: user });
    await third.ready();
    await a!.admin('POST', '/invalidate', { userID: user });
    await third.until(() => third.closed, 'AuthInvalidated on B');
    expect(third.errors[0]?.[0]).toBe('AuthInvalidated');
  });

  it('applies no push after another node closed the room, even in a batch written without the lock before the notification arrived', async () => {
    const { url, nodes: [a] } = await cluster(2, { pollMs: 600_000 });
    const roomID = uniqueID('room');
    const onA = a!.connect({ roomID });
    await onA.ready();
    onA.mutate('put', { key: 'before', value: 1 });
    await onA.acked(1);
    // Closed through another node whose notification has not arrived: only the row changed. A alone wrote the room
    // lately, so its next batch is written without the room's lock.
    await sql(url, 'UPDATE roomsync_rooms SET closed = true WHERE room_id = $1', [roomID]);
    onA.mutate('put', { key: 'late', value: true });
    await onA.until(() => onA.closed, 'RoomClosed on A');
    expect(onA.errors).toEqual([['RoomClosed', `Room ${roomID} was closed`]]);
    expect(await sql(url, 'SELECT key FROM roomsync_entries WHERE room_id = $1 ORDER BY key', [roomID])).toEqual([{ key: 'before' }]);
    expect(await sql(url, 'SELECT last_mutation_id FROM roomsync_clients WHERE room_id = $1', [roomID])).toEqual([{ last_mutation_id: '1' }]);
    const refused = a!.connect({ roomID });
    await refused.until(() => refused.closed);
    expect(refused.errors[0]?.[0]).toBe('RoomClosed');
  });

  it('catches up with what it missed while its listener was away (reconnect, then the poll)', async () => {
    const { url, nodes: [a, b] } = await cluster(2);
    const roomID = uniqueID('room');
    const onA = a!.connect({ roomID });
    const onB = b!.connect({ roomID });
    await Promise.all([onA.ready(), onB.ready()]);
    // Both listeners are cut off; what A commits meanwhile is announced to nobody.
    await dropListeners(url);
    onA.mutate('put', { key: 'while-away', value: true });
    await onA.acked(1);
    await onB.until(() => onB.state.get('while-away') === true, 'B to catch up');
    expect(onB.outOfOrder).toEqual([]);
  });
});

describe('a room deleted and created again by another node', () => {
  it('sends its clients RoomNotFound rather than a cookie that goes back', async () => {
    const { url, nodes: [a, b] } = await cluster(2, { pollMs: 600_000 });
    const roomID = uniqueID('room');
    const onB = b!.connect({ roomID });
    await onB.ready();
    onB.mutate('put', { key: 'old', value: 1 });
    await onB.acked(1);
    // B misses the notifications (its listener is cut off) while the room is deleted and made again.
    await dropListeners(url);
    await a!.admin('DELETE', `/rooms/${encodeURIComponent(roomID)}`);
    await a!.admin('POST', '/rooms', { roomID });
    onB.mutate('put', { key: 'new', value: 2 });
    await onB.until(() => onB.closed, 'B to give up the room');
    expect(onB.errors).toEqual([['RoomNotFound', roomID]]);
    expect(onB.outOfOrder).toEqual([]);
    const again = b!.connect({ roomID });
    await again.ready();
    expect(Object.fromEntries(again.state)).toEqual({});
  });
});
