/** Presence with several nodes (in this process) on one real PostgreSQL; the grace periods run on a fake clock. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/connection/testing/fake-clock';
import { presenceKey, readPresenceEntry } from '../../src/presence/presence-entry';
import { PostgresStorage } from '../storage/postgres/postgres-storage';
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
});
