import { afterAll, describe, expect, it } from 'vitest';
import { isRunning, killChildServers, startChildServer } from '../test-support/child-server';
import { startPostgres, stopPostgresServers } from '../test-support/postgres-server';
import { TestClient, uniqueID } from '../test-support/test-client';
import { slotOf } from './room-process-pool';

afterAll(async () => {
  await killChildServers();
  await stopPostgresServers();
});

const ADMIN_KEY = 'p'.repeat(32);

function roomIn(slot: number, count: number): string {
  for (;;) {
    const roomID = uniqueID('pg-room');
    if (slotOf(roomID, count) === slot) return roomID;
  }
}

describe('--room-processes on PostgreSQL', () => {
  it('serves rooms from processes that are each a node of the database: data survives a process killed from outside', async () => {
    const postgres = await startPostgres();
    const url = await postgres.createDatabase('room_processes');
    const server = await startChildServer(['--postgres', url, '--room-processes', '2', '--log-level', 'warn'], { env: { ROOMSYNC_ADMIN_KEY: ADMIN_KEY } });
    const stats = async () => {
      const res = await fetch(`${server.adminURL}/stats`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      return (await res.json()) as { processes: { pid: number }[] };
    };
    const rooms = [roomIn(0, 2), roomIn(1, 2)];
    const clients = rooms.map((roomID) => TestClient.connect(server.url, { roomID }));
    await Promise.all(clients.map((c) => c.ready()));
    for (const [i, c] of clients.entries()) await c.acked(c.mutate('put', { key: 'k', value: i }));

    const [first] = (await stats()).processes;
    process.kill(first!.pid, 'SIGKILL');
    await clients[0]!.until(() => clients[0]!.closed, 'its socket to close with its process');
    const again = TestClient.connect(server.url, { roomID: rooms[0]!, clientID: clients[0]!.clientID, clientGroupID: clients[0]!.clientGroupID });
    await again.until(() => again.state.get('k') === 0, 'the room to be served again from PostgreSQL', 30_000);
    expect(again.lmid).toBe(1);

    const pids = (await stats()).processes.map((p) => p.pid);
    expect(await server.stop('SIGTERM')).toBe(0);
    for (const pid of pids) for (let i = 0; i < 500 && isRunning(pid); i++) await new Promise((r) => setTimeout(r, 10));
    expect(pids.filter(isRunning)).toEqual([]);
    await postgres.stop();
  });
});
