import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WriteTransaction } from '../src/db/transaction-types';
import type { Storage } from './storage/types';
import { uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

let t: TestServer;
const logs: string[] = [];
beforeEach(async () => {
  logs.length = 0;
  t = await startTestServer({
    clock: { now: () => 1234 },
    mutators: {
      boom: async () => {
        throw new Error('mutator failure');
      },
      putThenFail: async (tx: WriteTransaction, args: { key: string }) => {
        await tx.put(args.key, 'should not stay');
        throw new Error('after write');
      },
    },
    logger: { debug() {}, info() {}, error: (m) => logs.push(m), warn: (m) => logs.push(m) },
  });
});
afterEach(() => t.close());

describe('sync', () => {
  it('sends connected and a catch-up poke to a new client', async () => {
    const roomID = uniqueID('room');
    const a = t.connect({ roomID });
    await a.ready();
    expect(a.messages[0]).toEqual(['connected', { wsid: expect.any(String), timestamp: 1234 }]);
    expect(a.pokes[0]).toEqual({ baseCookie: null, cookie: 0, lastMutationIDChanges: {}, patch: [{ op: 'clear' }], timestamp: 1234, requestID: '' });
  });

  it('two clients converge; the pusher gets its lastMutationIDChanges, the other {}', async () => {
    const roomID = uniqueID('room');
    const a = t.connect({ roomID });
    const b = t.connect({ roomID });
    await Promise.all([a.ready(), b.ready()]);
    const id = a.mutate('put', { key: 'x', value: { hello: 'world' } });
    a.mutate('increment', { key: 'n', delta: 2 });
    b.mutate('increment', { key: 'n', delta: 3 });
    await a.acked(id + 1);
    await b.acked(1);
    await a.until(() => a.state.get('n') === 5);
    await b.until(() => b.state.get('n') === 5);
    expect(Object.fromEntries(a.state)).toEqual({ x: { hello: 'world' }, n: 5 });
    expect(Object.fromEntries(b.state)).toEqual(Object.fromEntries(a.state));
    for (const p of b.pokes.slice(1)) expect(Object.keys(p.lastMutationIDChanges).every((k) => k === b.clientID)).toBe(true);
    expect(a.outOfOrder).toEqual([]);
    expect(b.outOfOrder).toEqual([]);
  });

  it('ten clients pushing concurrently converge to the same state', async () => {
    const roomID = uniqueID('room');
    const clients = Array.from({ length: 10 }, () => t.connect({ roomID }));
    await Promise.all(clients.map((c) => c.ready()));
    for (let round = 0; round < 20; round++) {
      for (const [i, c] of clients.entries()) {
        c.mutate('increment', { key: 'total', delta: 1 });
        c.mutate('put', { key: `k${i}`, value: round });
      }
    }
    await Promise.all(clients.map((c) => c.acked(40)));
    for (const c of clients) await c.until(() => c.state.get('total') === 200, 'total');
    const expected = { total: 200, ...Object.fromEntries(clients.map((_, i) => [`k${i}`, 19])) };
    for (const c of clients) {
      expect(Object.fromEntries(c.state)).toEqual(expected);
      expect(c.outOfOrder).toEqual([]);
    }
  });

  it('ignores already processed mutation ids (idempotent)', async () => {
    const roomID = uniqueID('room');
    const a = t.connect({ roomID });
    await a.ready();
    const m1 = a.mutation('increment', { key: 'n', delta: 1 });
    a.push([m1]);
    await a.acked(1);
    const pokes = a.pokes.length;
    a.push([m1, m1]);
    const m2 = a.mutation('increment', { key: 'n', delta: 10 });
    a.push([m1, m2]);
    await a.acked(2);
    expect(a.state.get('n')).toBe(11);
    expect(a.pokes.length).toBe(pokes + 1);
    expect(a.errors).toEqual([]);
  });

  it('answers an id gap with InvalidPush and closes', async () => {
    const roomID = uniqueID('room');
    const a = t.connect({ roomID });
    await a.ready();
    a.push([a.mutation('put', { key: 'a', value: 1 }, 1), a.mutation('put', { key: 'b', value: 1 }, 3)]);
    await a.until(() => a.closed, 'close');
    expect(a.errors).toEqual([['InvalidPush', `Push contains unexpected mutation id 3 for client ${a.clientID}. Expected mutation id 2.`]]);
    const again = t.connect({ roomID, clientID: a.clientID, clientGroupID: a.clientGroupID, baseCookie: null, lmid: 0 });
    await again.ready();
    expect(again.pokes[0]?.lastMutationIDChanges).toEqual({ [a.clientID]: 1 });
    expect(Object.fromEntries(again.state)).toEqual({ a: 1 });
  });

  it('skips a throwing or unknown mutator but counts it as processed', async () => {
    const roomID = uniqueID('room');
    const a = t.connect({ roomID });
    await a.ready();
    a.mutate('boom', {});
    a.mutate('putThenFail', { key: 'ghost' });
    a.mutate('noSuchMutator', {});
    a.mutate('put', { key: 'real', value: true });
    await a.acked(4);
    expect(Object.fromEntries(a.state)).toEqual({ real: true });
    expect(logs.filter((l) => l.includes('mutation failed'))).toHaveLength(3);
  });

  it('refuses a push for another client group, and mutations of a client bound to another group', async () => {
    const roomID = uniqueID('room');
    const a = t.connect({ roomID });
    const b = t.connect({ roomID });
    await Promise.all([a.ready(), b.ready()]);
    a.push([a.mutation('put', { key: 'a', value: 1 })], 'another-group');
    await a.until(() => a.closed);
    expect(a.errors[0]?.[0]).toBe('InvalidPush');
    b.push([b.mutation('put', { key: 'b', value: 1 }, 1, a.clientID)]);
    await b.until(() => b.closed);
    expect(b.errors[0]).toEqual(['InvalidPush', `Client ${a.clientID} belongs to client group ${a.clientGroupID}, not ${b.clientGroupID}`]);
  });

  it('pushes of another client of the same group are accepted; lastMutationIDChanges only reach that group', async () => {
    const roomID = uniqueID('room');
    const group = uniqueID('group');
    const a = t.connect({ roomID, clientGroupID: group });
    const a2 = t.connect({ roomID, clientGroupID: group });
    const other = t.connect({ roomID });
    await Promise.all([a.ready(), a2.ready(), other.ready()]);
    a.push([a.mutation('put', { key: 'k', value: 1 }), a.mutation('put', { key: 'k2', value: 2 }, 1, 'tab-gone')]);
    await a2.until(() => a2.pokes.some((p) => p.lastMutationIDChanges[a.clientID] === 1));
    const last = a2.pokes.at(-1)!;
    expect(last.lastMutationIDChanges).toEqual({ [a.clientID]: 1, 'tab-gone': 1 });
    await other.until(() => other.state.get('k2') === 2);
    expect(other.pokes.at(-1)!.lastMutationIDChanges).toEqual({});
  });

  it('catch-up after a reconnect carries deletes and the acknowledged lmid, never re-applying', async () => {
    const roomID = uniqueID('room');
    const a = t.connect({ roomID });
    const b = t.connect({ roomID });
    await Promise.all([a.ready(), b.ready()]);
    for (let i = 0; i < 5; i++) a.mutate('put', { key: `k${i}`, value: i });
    await b.until(() => b.state.size === 5);
    await b.close();
    const bCookie = b.cookie;
    a.mutate('del', { key: 'k1' });
    a.mutate('del', { key: 'k2' });
    a.mutate('put', { key: 'k9', value: 9 });
    const inc = a.mutate('increment', { key: 'n', delta: 1 });
    await a.acked(inc);

    // b comes back from its cookie: a patch with dels, not a clear.
    const b2 = t.connect({ roomID, clientID: b.clientID, clientGroupID: b.clientGroupID, baseCookie: bCookie });
    for (const [k, v] of b.state) b2.state.set(k, v);
    await b2.ready();
    const catchUp = b2.pokes[0]!;
    expect(catchUp.baseCookie).toBe(bCookie);
    expect(catchUp.patch).toEqual([
      { op: 'del', key: 'k1' },
      { op: 'del', key: 'k2' },
      { op: 'put', key: 'k9', value: 9 },
      { op: 'put', key: 'n', value: 1 },
    ]);
    expect(Object.fromEntries(b2.state)).toEqual(Object.fromEntries(a.state));

    // a reconnects with a stale lmid: the catch-up acknowledges, re-pushing does not re-apply.
    await a.close();
    const a2 = t.connect({ roomID, clientID: a.clientID, clientGroupID: a.clientGroupID, baseCookie: bCookie, lmid: 2 });
    await a2.ready();
    expect(a2.pokes[0]!.lastMutationIDChanges[a.clientID]).toBe(inc);
    a2.push([a2.mutation('increment', { key: 'n', delta: 1 }, inc)]);
    a2.push([a2.mutation('increment', { key: 'n', delta: 100 }, inc + 1)]);
    await a2.acked(inc + 1);
    await a2.until(() => a2.state.get('n') === 101);
  });

  it('sends nothing after connected when the client is current', async () => {
    const roomID = uniqueID('room');
    const a = t.connect({ roomID });
    await a.ready();
    a.mutate('put', { key: 'x', value: 1 });
    await a.acked(1);
    const b = t.connect({ roomID, clientID: a.clientID, clientGroupID: a.clientGroupID, baseCookie: a.cookie, lmid: 1 });
    await b.connected();
    b.sendRaw(JSON.stringify(['ping', {}]));
    await b.until(() => b.messages.some((m) => m[0] === 'pong'));
    expect(b.messages.map((m) => m[0])).toEqual(['connected', 'pong']);
  });

  it('answers a recovery pull with the room version and that group\'s last mutation ids', async () => {
    const roomID = uniqueID('room');
    const lost = t.connect({ roomID });
    await lost.ready();
    lost.mutate('put', { key: 'a', value: 1 });
    lost.mutate('put', { key: 'b', value: 1 });
    await lost.acked(2);
    const other = t.connect({ roomID });
    await other.ready();
    other.sendRaw(JSON.stringify(['pull', { clientGroupID: lost.clientGroupID, cookie: null, requestID: 'r-1' }]));
    await other.until(() => other.messages.some((m) => m[0] === 'pull'));
    expect(other.messages.find((m) => m[0] === 'pull')).toEqual([
      'pull',
      { cookie: lost.cookie, lastMutationIDChanges: { [lost.clientID]: 2 }, requestID: 'r-1' },
    ]);
  });

  it("answers a recovery pull from a cookie with the group's ids changed since it, none unchanged", async () => {
    const roomID = uniqueID('room');
    const first = t.connect({ roomID });
    await first.ready();
    first.mutate('put', { key: 'a', value: 1 });
    await first.acked(1);
    const second = t.connect({ roomID, clientGroupID: first.clientGroupID });
    await second.ready();
    const seen = second.cookie;
    second.mutate('put', { key: 'b', value: 1 });
    await second.acked(1);
    const other = t.connect({ roomID });
    await other.ready();
    const pull = async (cookie: number | null, requestID: string) => {
      other.sendRaw(JSON.stringify(['pull', { clientGroupID: first.clientGroupID, cookie, requestID }]));
      await other.until(() => other.messages.some((m) => m[0] === 'pull' && (m[1] as { requestID: string }).requestID === requestID));
      return (other.messages.find((m) => m[0] === 'pull' && (m[1] as { requestID: string }).requestID === requestID)![1] as { lastMutationIDChanges: unknown }).lastMutationIDChanges;
    };
    expect(await pull(null, 'from-none')).toEqual({ [first.clientID]: 1, [second.clientID]: 1 });
    expect(await pull(seen, 'from-seen')).toEqual({ [second.clientID]: 1 });
    expect(await pull(second.cookie, 'from-now')).toEqual({});
  });

  it('state survives the room being reloaded from storage', async () => {
    const { MemoryStorage } = await import('./storage/memory-storage');
    const storage = new MemoryStorage();
    const keepOpen = Object.assign(Object.create(storage) as Storage, { close: async () => {} });
    const s1 = await startTestServer({ storage: keepOpen });
    const roomID = uniqueID('room');
    const a = s1.connect({ roomID });
    await a.ready();
    a.mutate('put', { key: 'x', value: [1, 2] });
    a.mutate('del', { key: 'x' });
    a.mutate('put', { key: 'y', value: 'kept' });
    await a.acked(3);
    await s1.close();
    const s2 = await startTestServer({ storage });
    const b = s2.connect({ roomID });
    await b.ready();
    expect(b.pokes[0]!.patch).toEqual([{ op: 'clear' }, { op: 'put', key: 'y', value: 'kept' }]);
    expect(b.pokes[0]!.cookie).toBe(a.cookie);
    await s2.close();
  });
});

describe('rooms in memory', () => {
  it('drops an idle room from memory and reloads it from storage on the next connect', async () => {
    const roomID = uniqueID('room');
    const a = t.connect({ roomID });
    await a.ready();
    a.mutate('put', { key: 'x', value: 1 });
    await a.acked(1);
    expect((await t.admin('GET', '/stats')).json.roomsLoaded).toBe(1);
    await a.close();
    await new Promise((r) => setImmediate(r));
    expect((await t.admin('GET', '/stats')).json.roomsLoaded).toBe(0);
    const b = t.connect({ roomID, clientID: a.clientID, clientGroupID: a.clientGroupID, baseCookie: a.cookie, lmid: 1 });
    await b.connected();
    b.mutate('increment', { key: 'n', delta: 1 });
    await b.acked(2);
    expect(Object.fromEntries(b.state)).toEqual({ n: 1 });
    expect(b.cookie).toBe(a.cookie! + 1);
  });
});

describe('frames sent before connected', () => {
  it('are handled once the connect is accepted, in order', async () => {
    const roomID = uniqueID('room');
    const a = t.connect({ roomID });
    await new Promise((resolve) => a.ws.once('open', resolve));
    a.push([a.mutation('put', { key: 'early', value: 1 })]);
    a.sendRaw(JSON.stringify(['ping', {}]));
    await a.acked(1);
    await a.until(() => a.messages.some((m) => m[0] === 'pong'));
    expect(a.messages[0]![0]).toBe('connected');
    expect(a.state.get('early')).toBe(1);
  });
});
