import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { uniqueID } from './test-support/test-client';
import { startTestServer, TEST_ADMIN_KEY, type TestServer } from './test-support/test-server';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(() => t.close());

describe('admin API', () => {
  it('requires the key (Bearer or x-admin-key)', async () => {
    expect((await t.admin('GET', '/stats', undefined, null)).status).toBe(401);
    expect((await t.admin('GET', '/stats', undefined, 'wrong')).status).toBe(401);
    const res = await fetch(`${t.adminURL}/stats`, { headers: { 'x-admin-key': TEST_ADMIN_KEY } });
    expect(res.status).toBe(200);
    expect((await t.admin('GET', '/nope')).status).toBe(404);
    expect((await t.admin('DELETE', '/rooms/%E0%A4%A')).status).toBe(400);
  });

  it('is closed when the server has no admin key', async () => {
    const s = await startTestServer({ adminKey: undefined });
    expect((await s.admin('GET', '/stats')).status).toBe(401);
    await s.close();
  });

  it('creates, lists, closes and deletes rooms', async () => {
    expect(await t.admin('POST', '/rooms', { roomID: 'a' })).toEqual({ status: 201, json: { roomID: 'a', created: true } });
    expect((await t.admin('POST', '/rooms', { roomID: 'a' })).status).toBe(409);
    expect((await t.admin('POST', '/rooms', { nope: 1 })).status).toBe(400);
    const list = await t.admin('GET', '/rooms');
    expect(list.json.rooms).toEqual([expect.objectContaining({ roomID: 'a', version: 0, closed: false })]);

    const c = t.connect({ roomID: 'a' });
    await c.ready();
    c.mutate('put', { key: 'k', value: 1 });
    await c.acked(1);
    const closed = await t.admin('POST', '/rooms/a/close');
    expect(closed.json).toEqual({ roomID: 'a', closed: true, disconnected: 1 });
    await c.until(() => c.closed);
    expect(c.errors).toEqual([['RoomClosed', 'Room a was closed']]);
    expect((await t.admin('POST', '/rooms/zzz/close')).status).toBe(404);

    await t.admin('POST', '/rooms/a/open');
    const d = t.connect({ roomID: 'a' });
    await d.ready();
    expect(d.state.get('k')).toBe(1);
    expect((await t.admin('DELETE', '/rooms/a')).json).toEqual({ roomID: 'a', deleted: true, disconnected: 1 });
    await d.until(() => d.closed);
    expect(d.errors).toEqual([['RoomNotFound', 'a']]);
    expect((await t.admin('DELETE', '/rooms/a')).status).toBe(404);
    const e = t.connect({ roomID: 'a' });
    await e.ready();
    expect(e.state.size).toBe(0);
    expect(e.cookie).toBe(0);
  });

  it('invalidates connections by user, by room and all, with AuthInvalidated', async () => {
    const r1 = uniqueID('room');
    const r2 = uniqueID('room');
    const alice1 = t.connect({ roomID: r1, token: 'alice' });
    const bob1 = t.connect({ roomID: r1, token: 'bob' });
    const alice2 = t.connect({ roomID: r2, token: 'alice' });
    const carol2 = t.connect({ roomID: r2, token: 'carol' });
    const dave2 = t.connect({ roomID: r2, token: 'dave' });
    await Promise.all([alice1, bob1, alice2, carol2, dave2].map((c) => c.ready()));

    expect((await t.admin('POST', '/invalidate', { userID: 'alice' })).json).toEqual({ invalidated: 2 });
    await alice1.until(() => alice1.closed);
    await alice2.until(() => alice2.closed);
    expect(alice1.errors[0]?.[0]).toBe('AuthInvalidated');
    expect(bob1.closed).toBe(false);

    expect((await t.admin('POST', '/invalidate', { roomID: r1 })).json).toEqual({ invalidated: 1 });
    await bob1.until(() => bob1.closed);
    expect(carol2.closed).toBe(false);

    expect((await t.admin('POST', '/invalidate', {})).status).toBe(400);
    expect((await t.admin('POST', '/invalidate', { all: true })).json).toEqual({ invalidated: 2 });
    await carol2.until(() => carol2.closed);
    await dave2.until(() => dave2.closed);
    expect(dave2.errors).toEqual([['AuthInvalidated', expect.any(String)]]);
  });

  it('reports stats with memory use and counters', async () => {
    const c = t.connect({ roomID: 'stats-room' });
    await c.ready();
    c.mutate('increment', { key: 'n', delta: 1 });
    await c.acked(1);
    const { json } = await t.admin('GET', '/stats');
    expect(json).toMatchObject({
      roomsLoaded: 1,
      connections: 1,
      counters: expect.objectContaining({ mutations: 1, batches: 1, connects: 1 }),
      memory: expect.objectContaining({ rss: expect.any(Number), heapUsed: expect.any(Number) }),
      rooms: [expect.objectContaining({ roomID: 'stats-room', version: 1, keys: 1, connections: 1 })],
    });
  });
});
