import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConnectURL, encodeAuthSubprotocol, type ConnectParams } from '../../src/protocol';
import { isRunning, killChildServers, startChildServer, type ChildServer } from '../test-support/child-server';
import { RawUpgrade } from '../test-support/raw-upgrade';
import { newWsid, TestClient, uniqueID } from '../test-support/test-client';
import { slotOf } from './room-process-pool';

afterAll(() => killChildServers());

const HOSTILE_MUTATORS = 'server/test-support/hostile-mutators.ts';

/** The innocent client's `sleepThenPut` (its mutation 1), pushed again after its process restarted, runs: it was not skipped. */
async function expectToRunAgain(server: ChildServer, roomID: string, innocent: TestClient): Promise<void> {
  const again = await reconnect(server, roomID, innocent);
  again.push([again.mutation('sleepThenPut', { ms: 1, key: 'innocent' }, 1)]);
  await again.until(() => again.lmid === 1, 'the innocent mutation to run again');
  expect(again.state.get('innocent')).toBe(true);
}

/** Client `c` of `roomID` again on a new socket, as a real client reconnects, once connected. */
async function reconnect(server: ChildServer, roomID: string, c: TestClient, options: { baseCookie?: number | null; lmid?: number } = {}): Promise<TestClient> {
  const again = TestClient.connect(server.url, { roomID, clientID: c.clientID, clientGroupID: c.clientGroupID, ...options });
  await again.ready();
  return again;
}

function dataDir(): string {
  return mkdtempSync(join(tmpdir(), 'roomsync-rp-'));
}

/** A fresh room id served by process `slot` of `count`. */
function roomIn(slot: number, count: number): string {
  for (;;) {
    const roomID = uniqueID('room');
    if (slotOf(roomID, count) === slot) return roomID;
  }
}

const ADMIN_KEY = 'k'.repeat(32);

function connectParams(roomID: string): ConnectParams {
  return { clientID: uniqueID('c'), clientGroupID: uniqueID('g'), roomID, baseCookie: null, ts: 1, lmid: 0, wsid: newWsid() };
}

async function stats(server: ChildServer): Promise<{ processes: { slot: number; pid: number | null; status: number }[]; rooms: { roomID: string }[]; counters: Record<string, number> }> {
  const res = await fetch(`${server.adminURL}/stats`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

async function gone(pid: number): Promise<void> {
  for (let i = 0; i < 500 && isRunning(pid); i++) await new Promise((r) => setTimeout(r, 10));
  expect(isRunning(pid)).toBe(false);
}

function start(args: readonly string[]): Promise<ChildServer> {
  return startChildServer(['--data-dir', dataDir(), '--log-level', 'info', ...args], { env: { ROOMSYNC_ADMIN_KEY: ADMIN_KEY } });
}

describe('--room-processes', () => {
  it('serves each room from the process its id hashes to, answers the admin API for all of them, and leaves no process behind', async () => {
    const server = await start(['--room-processes', '2']);
    const { processes } = await stats(server);
    const pids = processes.map((p) => p.pid!);
    expect(pids).toHaveLength(2);
    expect(new Set([server.pid, ...pids]).size).toBe(3);

    const first = roomIn(0, 2);
    const second = roomIn(1, 2);
    const a = TestClient.connect(server.url, { roomID: first });
    const b = TestClient.connect(server.url, { roomID: first });
    const c = TestClient.connect(server.url, { roomID: second });
    await Promise.all([a.ready(), b.ready(), c.ready()]);
    await a.acked(a.mutate('put', { key: 'x', value: 1 }));
    await b.until(() => b.state.get('x') === 1, 'the other client of the room to see x');
    await c.acked(c.mutate('put', { key: 'y', value: 2 }));

    const after = await stats(server);
    expect(after.rooms.map((r) => r.roomID).sort()).toEqual([first, second].sort());
    expect(after.counters.mutations).toBe(2);
    const key = { authorization: `Bearer ${ADMIN_KEY}` };
    const listed = (await (await fetch(`${server.adminURL}/rooms`, { headers: key })).json()) as { rooms: { roomID: string }[] };
    expect(listed.rooms.map((r) => r.roomID)).toEqual(expect.arrayContaining([first, second]));
    // A room's own request goes to its process, which disconnects its clients.
    const deleted = await fetch(`${server.adminURL}/rooms/${encodeURIComponent(second)}`, { method: 'DELETE', headers: key });
    expect(await deleted.json()).toMatchObject({ deleted: true, disconnected: 1 });
    await c.until(() => c.closed, 'the deleted room to disconnect its client');
    const invalidated = await fetch(`${server.adminURL}/invalidate`, { method: 'POST', headers: key, body: JSON.stringify({ all: true }) });
    expect(await invalidated.json()).toEqual({ invalidated: 2 });

    expect(await server.stop('SIGTERM')).toBe(0);
    for (const pid of pids) await gone(pid);
  });

  it('loses no frame a client sends the moment its socket opens: only the room process reads a handed-over socket', async () => {
    const server = await start(['--room-processes', '2']);
    for (let i = 0; i < 40; i++) {
      const c = TestClient.connect(server.url, { roomID: uniqueID('room') });
      c.ws.once('open', () => c.mutate('put', { key: 'k', value: i }));
      await c.acked(1);
      await c.close();
    }
  });

  it("hands a waiting connect's early bytes to the process with its socket; a client that half-closes while it waits frees its place", async () => {
    // Loopback is not capped unless it is a trusted proxy: the clients come "through" one, from one address.
    const server = await start(['--room-processes', '1', '--trusted-proxies', '127.0.0.1', '--max-connections-per-address', '1']);
    const from = { 'X-Forwarded-For': '203.0.113.7' };
    const victim = (await stats(server)).processes[0]!.pid!;
    process.kill(victim, 'SIGKILL');
    await gone(victim);
    // Started again but not serving yet: connects wait in the acceptor, which reads their sockets meanwhile.
    while ((await stats(server)).processes[0]!.pid === victim) await new Promise((r) => setTimeout(r, 10));

    const aMoment = () => new Promise((r) => setTimeout(r, 50));
    const leaving = await RawUpgrade.open(server.url, connectParams(uniqueID('room')), 'user', from);
    await aMoment();
    leaving.socket.end();
    await aMoment();
    const params = connectParams(uniqueID('room'));
    const early = await RawUpgrade.open(server.url, params, 'user', from);
    await aMoment();
    const push = { timestamp: 1, clientGroupID: params.clientGroupID, mutations: [{ id: 1, clientID: params.clientID, name: 'put', args: { key: 'k', value: 1 }, timestamp: 1 }], pushVersion: 1, schemaVersion: '1', requestID: 'r1' };
    early.sendText(JSON.stringify(['push', push]));
    await early.until('HTTP/1.1 101');
    await early.until(`"lastMutationIDChanges":{"${params.clientID}":1}`);
  });

  it('stops only the process of a mutator stuck in synchronous code; it starts again and skips that mutation, the other process serving all along', async () => {
    const server = await start(['--room-processes', '2', '--mutators', HOSTILE_MUTATORS, '--mutator-timeout-ms', '200']);
    const before = (await stats(server)).processes;
    const stuckRoom = roomIn(0, 2);
    const otherRoom = roomIn(1, 2);
    const neighbourRoom = roomIn(0, 2);
    const a = TestClient.connect(server.url, { roomID: stuckRoom });
    const b = TestClient.connect(server.url, { roomID: otherRoom });
    const n = TestClient.connect(server.url, { roomID: neighbourRoom });
    await Promise.all([a.ready(), b.ready(), n.ready()]);
    await n.acked(n.mutate('put', { key: 'n', value: 1 }));

    a.push([a.mutation('put', { key: 'before', value: 1 }), a.mutation('spin', {}), a.mutation('put', { key: 'after', value: 3 })]);
    await b.acked(b.mutate('put', { key: 'b', value: 1 }));
    await a.until(() => a.closed, 'the stuck process to be stopped (its sockets close)', 10_000);
    await gone(before[0]!.pid!);
    await b.acked(b.mutate('put', { key: 'b', value: 2 }));
    // A room that shared the stopped process: its client lost its socket, reconnects and finds its data.
    await n.until(() => n.closed, 'the neighbour room to lose its socket with the process');
    const back = await reconnect(server, neighbourRoom, n, { baseCookie: n.cookie, lmid: n.lmid });
    await back.acked(back.mutate('put', { key: 'n', value: 2 }));

    // The client reconnects (as a real one does) and pushes its pending mutations again: the stuck one is skipped.
    const again = await reconnect(server, stuckRoom, a);
    again.push([again.mutation('put', { key: 'before', value: 1 }, 1), again.mutation('spin', {}, 2), again.mutation('put', { key: 'after', value: 3 }, 3)]);
    await again.until(() => again.lmid === 3, 'the pushed mutations to be acknowledged');
    expect(Object.fromEntries([...again.state].filter(([k]) => !k.startsWith('_roomsync/')))).toEqual({ before: 1, after: 3 });

    const now = (await stats(server)).processes;
    expect(now[0]!.pid).not.toBe(before[0]!.pid);
    expect(now[1]!.pid).toBe(before[1]!.pid);
    expect(server.stderr.join('\n')).toContain('a mutator was stuck in synchronous code');
    expect(await server.stop('SIGTERM')).toBe(0);
    for (const p of now) await gone(p.pid!);
  });

  it('blames the oldest mutation under way when a process is stuck, not one that started after it; connects made meanwhile are served after', async () => {
    const server = await start(['--room-processes', '2', '--mutators', HOSTILE_MUTATORS, '--mutator-timeout-ms', '400']);
    const before = (await stats(server)).processes;
    const [guiltyRoom, innocentRoom] = [roomIn(0, 2), roomIn(0, 2)];
    const guilty = TestClient.connect(server.url, { roomID: guiltyRoom });
    const innocent = TestClient.connect(server.url, { roomID: innocentRoom });
    await Promise.all([guilty.ready(), innocent.ready()]);
    // The guilty one starts first and spins once its wait is over; the innocent one starts meanwhile and is still waiting then.
    guilty.push([guilty.mutation('sleepThenSpin', { ms: 150 })]);
    await new Promise((r) => setTimeout(r, 50));
    innocent.push([innocent.mutation('sleepThenPut', { ms: 300, key: 'innocent' })]);
    await guilty.until(() => guilty.closed, 'the stuck process to be stopped', 10_000);
    // Connects made while it was stuck or starting again wait for the new process.
    await expectToRunAgain(server, innocentRoom, innocent);
    const again = await reconnect(server, guiltyRoom, guilty);
    again.push([again.mutation('sleepThenSpin', { ms: 1 }, 1), again.mutation('put', { key: 'after', value: 1 }, 2)]);
    await again.until(() => again.lmid === 2, 'the guilty mutation to be skipped');
    const after = await stats(server);
    expect(after.processes[0]!.pid).not.toBe(before[0]!.pid);
    expect(after.counters).toMatchObject({ roomProcessesStopped: 1, roomProcessesStoppedStuck: 1 });
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('stops a process whose mutator spins after its timer failed it (the mutation was processed as failed already)', async () => {
    const server = await start(['--room-processes', '2', '--mutators', HOSTILE_MUTATORS, '--mutator-timeout-ms', '200']);
    const before = (await stats(server)).processes;
    const roomID = roomIn(1, 2);
    const client = TestClient.connect(server.url, { roomID });
    await client.ready();
    await client.acked(client.mutate('sleepThenSpin', { ms: 400 }));
    await client.until(() => client.closed, 'the process to be stopped once the failed mutator spins', 10_000);
    const back = await reconnect(server, roomID, client, { baseCookie: client.cookie, lmid: 1 });
    await back.acked(back.mutate('put', { key: 'k', value: 1 }));
    const after = await stats(server);
    expect(after.processes[1]!.pid).not.toBe(before[1]!.pid);
    expect(after.counters.roomProcessesStoppedStuck).toBe(1);
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('skips no mutation when one its timer failed was still under way (it may be the one that spins), so an innocent one is not failed', async () => {
    const server = await start(['--room-processes', '2', '--mutators', HOSTILE_MUTATORS, '--mutator-timeout-ms', '300']);
    const [zombieRoom, innocentRoom] = [roomIn(0, 2), roomIn(0, 2)];
    const zombie = TestClient.connect(server.url, { roomID: zombieRoom });
    const innocent = TestClient.connect(server.url, { roomID: innocentRoom });
    await Promise.all([zombie.ready(), innocent.ready()]);
    // Failed by its timer at 300 ms, it spins from 600 ms; the innocent one starts at ~400 ms and still waits then.
    await zombie.acked(zombie.mutate('sleepThenSpin', { ms: 600 }));
    await new Promise((r) => setTimeout(r, 100));
    innocent.push([innocent.mutation('sleepThenPut', { ms: 400, key: 'innocent' })]);
    await innocent.until(() => innocent.closed, 'the process to be stopped', 10_000);
    await expectToRunAgain(server, innocentRoom, innocent);
    expect(server.stderr.join('\n')).toContain('one already failed by its timer was still running');
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('does not stop a process whose mutator only awaits past the timeout (failed by its timer; the thread goes on)', async () => {
    const server = await start(['--room-processes', '2', '--mutators', HOSTILE_MUTATORS, '--mutator-timeout-ms', '200']);
    const before = (await stats(server)).processes;
    const slow = TestClient.connect(server.url, { roomID: roomIn(0, 2) });
    await slow.ready();
    const startedAt = Date.now();
    await slow.acked(slow.mutate('sleepThenPut', { ms: 800, key: 'late' }));
    // No mutation starts or settles meanwhile; the process answers the admin API until well past 1.25 timeouts.
    while (Date.now() - startedAt < 1000) expect((await stats(server)).processes[0]!.pid).toBe(before[0]!.pid);
    expect(slow.closed).toBe(false);
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('routes admin requests as the room processes read their paths (percent-encoded segments decoded)', async () => {
    const server = await start(['--room-processes', '2']);
    const clients = [roomIn(0, 2), roomIn(1, 2)].map((roomID) => TestClient.connect(server.url, { roomID }));
    await Promise.all(clients.map((c) => c.ready()));
    const key = { authorization: `Bearer ${ADMIN_KEY}` };
    const invalidated = await fetch(`${server.adminURL}/invalidat%65`, { method: 'POST', headers: key, body: JSON.stringify({ all: true }) });
    expect(await invalidated.json()).toEqual({ invalidated: 2 });
    const merged = (await (await fetch(`${server.adminURL}/%73tats`, { headers: key })).json()) as { processes?: unknown[] };
    expect(merged.processes).toHaveLength(2);
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('starts a process killed from outside again; when the acceptor is killed its processes go too', async () => {
    const server = await start(['--room-processes', '2']);
    const [victim, survivor] = (await stats(server)).processes.map((p) => p.pid!);
    process.kill(victim!, 'SIGKILL');
    await gone(victim!);
    const client = TestClient.connect(server.url, { roomID: roomIn(0, 2) });
    await client.ready();
    await client.acked(client.mutate('put', { key: 'k', value: 1 }));
    const restarted = (await stats(server)).processes[0]!.pid!;
    expect(restarted).not.toBe(victim);

    await server.stop('SIGKILL');
    await gone(restarted);
    await gone(survivor!);
  });

  it('counts a handed-over socket against its address until its process closes it', async () => {
    const server = await start(['--room-processes', '2', '--trusted-proxies', '127.0.0.1', '--max-connections-per-address', '2']);
    const open = (roomID: string) => {
      const params = { clientID: uniqueID('c'), clientGroupID: uniqueID('g'), roomID, baseCookie: null, ts: 1, lmid: 0, wsid: newWsid() };
      const ws = new WebSocket(buildConnectURL(server.url, params), [encodeAuthSubprotocol('user')!], { headers: { 'x-forwarded-for': '203.0.113.9' } });
      return new Promise<{ ws: WebSocket; status: number }>((resolve) => {
        ws.once('open', () => resolve({ ws, status: 101 }));
        ws.once('unexpected-response', (_req, res) => resolve({ ws, status: res.statusCode ?? 0 }));
        ws.once('error', () => {});
      });
    };
    const one = await open(roomIn(0, 2));
    const two = await open(roomIn(1, 2));
    expect([one.status, two.status]).toEqual([101, 101]);
    expect((await open(roomIn(0, 2))).status).toBe(429);
    one.ws.close();
    let next = await open(roomIn(1, 2));
    for (let i = 0; i < 100 && next.status === 429; i++) next = await open(roomIn(1, 2));
    expect(next.status).toBe(101);
    two.ws.close();
    next.ws.close();
    await server.stop('SIGTERM');
  });

  it('counts the rooms a user creates across every process (the acceptor keeps the windows)', async () => {
    const server = await start(['--room-processes', '2', '--rooms-per-user', '2']);
    const rooms = [roomIn(0, 2), roomIn(1, 2), roomIn(0, 2), roomIn(1, 2)];
    const connect = async (roomID: string) => {
      const c = TestClient.connect(server.url, { roomID, token: 'mallory' });
      await c.until(() => c.messages.length > 0 || c.closed, 'an answer to the connect');
      return c.messages[0]?.[0] === 'connected' ? 'created' : (c.errors[0]?.[1] ?? 'closed');
    };
    expect(await connect(rooms[0]!)).toBe('created');
    expect(await connect(rooms[1]!)).toBe('created');
    for (const roomID of rooms.slice(2)) expect(await connect(roomID)).toMatch(/user mallory created 2 rooms recently \(limit 2\)/);
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('refuses to start without storage that outlives a process, or with room workers too', async () => {
    const memory = await startChildServer(['--room-processes', '2', '--memory']).catch((e: Error) => e);
    expect(String(memory)).toContain('--room-processes needs --data-dir or --postgres');
    const workers = await startChildServer(['--room-processes', '2', '--room-workers', '2', '--data-dir', dataDir()]).catch((e: Error) => e);
    expect(String(workers)).toContain('Choose --room-processes or --room-workers');
  });
});
