import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { buildConnectURL } from '../src/protocol';
import type { Timers } from './clock';
import { MemoryStorage } from './storage/memory-storage';
import { newWsid, uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function roomStats(roomID: string) {
  const { json } = await t!.admin('GET', '/stats');
  const rooms = json.rooms as { roomID: string; connections: number; bytes: number }[];
  return { connections: json.connections as number, room: rooms.find((r) => r.roomID === roomID) };
}

describe('quotas', () => {
  it('skips a mutation that would take a room over its size limit; the room stays joinable and catches up', async () => {
    t = await startTestServer({ maxRoomBytes: 10_000 });
    const roomID = uniqueID('room');
    const c = t.connect({ roomID });
    await c.ready();
    c.mutate('put', { key: 'a', value: 'x'.repeat(6000) });
    c.mutate('put', { key: 'b', value: 'y'.repeat(6000) });
    c.mutate('put', { key: 'small', value: 1 });
    await c.acked(3);
    expect([...c.state.keys()].sort()).toEqual(['a', 'small']);
    expect((await roomStats(roomID)).room?.bytes).toBeLessThanOrEqual(10_000);
    // Shrinking is always allowed; then the big write fits.
    c.mutate('del', { key: 'a' });
    c.mutate('put', { key: 'b', value: 'y'.repeat(6000) });
    await c.acked(5);
    const late = t.connect({ roomID });
    await late.ready();
    expect([...late.state.keys()].sort()).toEqual(['b', 'small']);
  });

  it('limits the rooms a user, an address and the server create by connecting', async () => {
    t = await startTestServer({ roomsPerUser: 2, maxRooms: 3 });
    const refused = async (token: string) => {
      const c = t!.connect({ roomID: uniqueID('room'), token });
      await c.until(() => c.closed);
      return c.errors[0];
    };
    await t.connect({ roomID: uniqueID('room'), token: 'alice' }).ready();
    await t.connect({ roomID: uniqueID('room'), token: 'alice' }).ready();
    expect(await refused('alice')).toEqual(['InvalidConnectionRequest', expect.stringMatching(/user alice created 2 rooms recently \(limit 2\)/)]);
    await t.connect({ roomID: uniqueID('room'), token: 'bob' }).ready();
    expect(await refused('carol')).toEqual(['InvalidConnectionRequest', expect.stringMatching(/holds its limit of 3 rooms/)]);
    await t.close();
    t = await startTestServer({ roomsPerAddress: 1 });
    await t.connect({ roomID: uniqueID('room'), token: 'dave' }).ready();
    expect(await refused('erin')).toEqual(['InvalidConnectionRequest', expect.stringMatching(/this address created 1 rooms recently/)]);
  });

  it('a room holding a value from before the depth limit: connects succeed without it, leave no connection behind, and the room unloads', async () => {
    // A room stored before values had a depth limit: 100,000 levels, which a recursive walk cannot copy or encode.
    const storage = new MemoryStorage();
    const roomID = uniqueID('legacy');
    await storage.createRoom(roomID, 0);
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    await storage.commitBatch(roomID, { baseVersion: 0, version: 1, entries: [{ key: 'deep', json: deep, version: 1 }], clients: [] });
    t = await startTestServer({ storage });
    const url = buildConnectURL(t.url, { clientID: 'c1', clientGroupID: 'g1', roomID, baseCookie: null, ts: 1, lmid: 0, wsid: newWsid() });
    const raw = new WebSocket(url, ['user'], { maxPayload: 16 * 1024 * 1024 });
    const frames: string[] = [];
    raw.on('message', (d) => frames.push(d.toString().slice(0, 20)));
    await new Promise<void>((resolve) => raw.on('message', () => frames.length >= 2 && resolve()));
    expect(frames).toEqual(['["connected",{"wsid"', '["poke",{"baseCookie']);
    expect((await roomStats(roomID)).room?.connections).toBe(1);
    raw.close();
    await new Promise((r) => raw.on('close', r));
    for (let i = 0; i < 50 && (await roomStats(roomID)).room !== undefined; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await roomStats(roomID)).toEqual({ connections: 0, room: undefined });
    // The value no client would accept is not served: a conforming client joins the room.
    const c = t.connect({ roomID });
    await c.ready();
    expect(c.state.has('deep')).toBe(false);
  });

  it('closes a connection that stays silent (no frame, no pong) for the idle timeout', async () => {
    const looks: (() => void)[] = [];
    const timers: Timers = {
      setTimeout: (cb, ms) => (ms === 500 ? looks.push(cb) : setTimeout(cb, ms)),
      clearTimeout: (h) => (typeof h === 'number' ? undefined : clearTimeout(h as NodeJS.Timeout)),
    };
    t = await startTestServer({ idleTimeoutMs: 1000, timers });
    const roomID = uniqueID('room');
    const alive = t.connect({ roomID });
    const silent = t.connect({ roomID });
    await Promise.all([alive.ready(), silent.ready()]);
    // A client whose socket is not read answers no WebSocket ping.
    (silent.ws as unknown as { _socket: import('node:net').Socket })._socket.pause();
    const fire = async () => {
      for (const look of looks.splice(0)) look();
      await new Promise((r) => setTimeout(r, 20));
    };
    await fire(); // both were active since the last look
    await fire(); // silent since: pinged
    await fire(); // the live client answered the ping (ws answers pings itself); the silent one did not
    await alive.until(() => alive.pokes.length > 0);
    expect((await roomStats(roomID)).room?.connections).toBe(1);
    expect(alive.closed).toBe(false);
    const { json } = await t.admin('GET', '/stats');
    expect((json.counters as { idleClosed: number }).idleClosed).toBe(1);
  });
});
