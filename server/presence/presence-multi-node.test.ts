/** Presence with several nodes (in this process) on one real PostgreSQL; the grace periods run on a fake clock. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/connection/testing/fake-clock';
import { presenceKey, readPresenceEntry } from '../../src/presence/presence-entry';
import { PostgresStorage } from '../storage/postgres/postgres-storage';
import { pollUntil } from '../test-support/event-loop';
import { sql } from '../test-support/pg-sql';
import { startPostgres, type PostgresServer } from '../test-support/postgres-server';
import { TestClient, uniqueID } from '../test-support/test-client';
import { startTestServer, type TestServer } from '../test-support/test-server';

const GRACE_MS = 10_000;

let postgres: PostgresServer;
let nodes: TestServer[] = [];
let clients: TestClient[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(nodes.map((n) => n.close()));
  clients = [];
  nodes = [];
});
afterAll(() => postgres?.stop(), 30_000);

async function node(url: string, clock: FakeClock, nodeID: string): Promise<TestServer> {
  const storage = await PostgresStorage.open({ connectionString: url, poolSize: 2 });
  const server = await startTestServer({ storage, clock, timers: clock, presence: { graceMs: GRACE_MS, nodeID } });
  nodes.push(server);
  return server;
}

function connect(server: TestServer, options: Parameters<TestServer['connect']>[0]): TestClient {
  const c = server.connect(options);
  clients.push(c);
  return c;
}

/** The node named in the entry of `clientID` as `observer` sees it; undefined: not present. */
function nodeOf(observer: TestClient, clientID: string): string | undefined {
  const key = presenceKey(clientID);
  return readPresenceEntry(key, observer.state.get(key) as never)?.node;
}

describe('presence on many nodes', () => {
  it('a client that moves to another node within the grace period stays present: the first node\'s leave does not remove it there', async () => {
    const url = await postgres.createDatabase('presence_nodes');
    const clock = new FakeClock(1_700_000_000_000);
    const [a, b] = [await node(url, clock, 'node-a'), await node(url, clock, 'node-b')];
    const roomID = uniqueID('room');
    const observer = connect(b, { roomID, token: 'olga' });
    const ids = { clientID: uniqueID('mover'), clientGroupID: uniqueID('g') };
    const onA = connect(a, { roomID, token: 'mo', ...ids });
    await observer.until(() => nodeOf(observer, ids.clientID) === 'node-a', 'the mover listed on node A');

    await onA.close();
    const onB = connect(b, { roomID, token: 'mo', ...ids });
    await observer.until(() => nodeOf(observer, ids.clientID) === 'node-b', 'node B taking the mover over');
    await clock.advance(GRACE_MS * 2);
    // Node A's leave (and anything else it would write) has had time to go through PostgreSQL.
    const marker = uniqueID('k');
    const writer = connect(a, { roomID, token: 'olga' });
    await writer.ready();
    writer.mutate('put', { key: marker, value: 1 });
    await observer.until(() => observer.state.has(marker), "a later write of node A's");
    expect(nodeOf(observer, ids.clientID)).toBe('node-b');

    await onB.close();
    await clock.advance(GRACE_MS);
    await observer.until(() => nodeOf(observer, ids.clientID) === undefined, 'the mover gone a grace period after leaving B');
  }, 60_000);

  it('a room closed through another node takes no more pushes from a node that writes it without the lock, but still removes a leaving client\'s presence', async () => {
    const url = await postgres.createDatabase('presence_closed');
    const clock = new FakeClock(1_700_000_000_000);
    const a = await node(url, clock, 'node-a');
    const roomID = uniqueID('room');
    const onA = connect(a, { roomID, token: 'ann' });
    await onA.until(() => nodeOf(onA, onA.clientID) === 'node-a', 'its own presence');
    onA.mutate('put', { key: 'before', value: 1 });
    await onA.acked(1);
    // Closed through another node whose notification has not arrived: only the row changed.
    await sql(url, 'UPDATE roomsync_rooms SET closed = true WHERE room_id = $1', [roomID]);
    onA.mutate('put', { key: 'late', value: 2 });
    await onA.until(() => onA.closed, 'RoomClosed');
    expect(onA.errors.map(([kind]) => kind)).toEqual(['RoomClosed']);
    // Its leave, a grace period later, is a batch of presence changes only: written in the closed room.
    await clock.advance(GRACE_MS);
    const key = presenceKey(onA.clientID);
    await pollUntil('the presence entry removed', async () => (await sql(url, 'SELECT 1 FROM roomsync_entries WHERE room_id = $1 AND key = $2 AND value IS NOT NULL', [roomID, key])).length === 0);
    const keys = await sql<{ key: string }>(url, 'SELECT key FROM roomsync_entries WHERE room_id = $1 AND value IS NOT NULL', [roomID]);
    expect(keys.map((r) => r.key)).toEqual(['before']);
  }, 60_000);
});
