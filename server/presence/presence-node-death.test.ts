/** Presence when a node's real server process is killed: a node still alive removes its clients' entries. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presenceKey, readPresenceEntry } from '../../src/presence/presence-entry';
import { isRunning } from '../test-support/child-server';
import { startNodeCluster, type NodeCluster } from '../test-support/node-cluster';
import { TestClient, uniqueID } from '../test-support/test-client';

/** Short, so the test is quick: a node's beats stop when it dies, then its clients' entries go after this. */
const GRACE_MS = 300;
/** Beats every 2 s (the poll interval), gone after 3 missed: well under this. */
const GONE_WITHIN_MS = 20_000;

let cluster: NodeCluster;
const clients: TestClient[] = [];

beforeAll(async () => {
  cluster = await startNodeCluster(2, ['--presence-grace-ms', String(GRACE_MS)]);
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await cluster?.stop();
}, 30_000);

function connect(origin: string, roomID: string, token: string): TestClient {
  const c = TestClient.connect(origin, { roomID, token });
  clients.push(c);
  return c;
}

function entryOf(observer: TestClient, clientID: string) {
  const key = presenceKey(clientID);
  return readPresenceEntry(key, observer.state.get(key) as never);
}

describe('presence when a node dies (kill -9 of its real process)', () => {
  it("removes the entries of the dead node's clients once its beats stop, and keeps those of live nodes", async () => {
    const [a, b] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    const roomID = uniqueID('room');
    const observer = connect(b.url, roomID, 'olga');
    const onA = connect(a.url, roomID, 'ann');
    const onB = connect(b.url, roomID, 'bob');
    await observer.until(() => entryOf(observer, onA.clientID) !== undefined && entryOf(observer, onB.clientID) !== undefined, 'both clients present');
    const nodeA = entryOf(observer, onA.clientID)!.node;
    expect(entryOf(observer, onB.clientID)!.node).not.toBe(nodeA);

    await cluster.kill(a);
    expect(isRunning(a.pid)).toBe(false);
    await onA.until(() => onA.closed, 'the socket of the killed node to close');
    await observer.until(() => entryOf(observer, onA.clientID) === undefined, "the dead node's client gone", GONE_WITHIN_MS);
    expect(entryOf(observer, onB.clientID)?.userID).toBe('bob');
    expect(entryOf(observer, observer.clientID)?.userID).toBe('olga');
    expect(observer.outOfOrder).toEqual([]);
  }, 60_000);
});
