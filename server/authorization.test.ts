import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { buildConnectURL } from '../src/protocol';
import { authOf } from './server-transaction';
import { newWsid, uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Alice's client, connected to `roomID`, with her first mutation (`a` = 1) acknowledged. */
async function aliceWithOnePut(roomID: string) {
  const alice = t!.connect({ roomID, token: 'alice' });
  await alice.ready();
  alice.mutate('put', { key: 'a', value: 1 });
  await alice.acked(1);
  return alice;
}

describe('per-user authorization', () => {
  it('binds a client id to the user who first connected with it: another user gets Unauthorized', async () => {
    t = await startTestServer();
    const roomID = uniqueID('room');
    const alice = await aliceWithOnePut(roomID);
    const bob = t.connect({ roomID, token: 'bob', clientID: alice.clientID, clientGroupID: alice.clientGroupID, lmid: 1 });
    await bob.until(() => bob.closed);
    expect(bob.errors).toEqual([['Unauthorized', `Client ${alice.clientID} belongs to another user`]]);
  });

  it("refuses a push in the name of another user's client with Unauthorized, without naming that client's group", async () => {
    t = await startTestServer();
    const roomID = uniqueID('room');
    const alice = await aliceWithOnePut(roomID);
    const bob = t.connect({ roomID, token: 'bob' });
    await bob.ready();
    bob.push([bob.mutation('put', { key: 'a', value: 'stolen' }, 2, alice.clientID)]);
    await bob.until(() => bob.closed);
    expect(bob.errors).toEqual([['Unauthorized', `Client ${alice.clientID} belongs to another user`]]);
    expect(alice.state.get('a')).toBe(1);
  });

  it("binds a client group to its first client's user: another user can neither connect into it, push in its name nor pull its mutation ids", async () => {
    t = await startTestServer();
    const roomID = uniqueID('room');
    const alice = await aliceWithOnePut(roomID);
    const refusal = [['Unauthorized', `Client group ${alice.clientGroupID} belongs to another user`]];
    // A new client of bob's in alice's group.
    const joining = t.connect({ roomID, token: 'bob', clientGroupID: alice.clientGroupID });
    await joining.until(() => joining.closed);
    expect(joining.errors).toEqual(refusal);
    // A push naming alice's group from bob's own connection.
    const pushing = t.connect({ roomID, token: 'bob' });
    await pushing.ready();
    pushing.push([pushing.mutation('put', { key: 'a', value: 'stolen' }, 1)], alice.clientGroupID);
    await pushing.until(() => pushing.closed);
    expect(pushing.errors).toEqual(refusal);
    // A recovery pull of alice's group.
    const pulling = t.connect({ roomID, token: 'bob' });
    await pulling.ready();
    pulling.sendRaw(JSON.stringify(['pull', { clientGroupID: alice.clientGroupID, cookie: null, requestID: 'p1' }]));
    await pulling.until(() => pulling.closed);
    expect(pulling.errors).toEqual(refusal);
    expect(pulling.messages.some((m) => m[0] === 'pull')).toBe(false);
    // Alice's own second client, and her own pull, are served.
    const second = t.connect({ roomID, token: 'alice', clientGroupID: alice.clientGroupID });
    await second.ready();
    second.sendRaw(JSON.stringify(['pull', { clientGroupID: alice.clientGroupID, cookie: null, requestID: 'p2' }]));
    await second.until(() => second.messages.some((m) => m[0] === 'pull'));
    expect(second.messages.find((m) => m[0] === 'pull')![1]).toMatchObject({ requestID: 'p2', lastMutationIDChanges: { [alice.clientID]: 1 } });
    expect(alice.state.get('a')).toBe(1);
  });

  it('lets mutators see tx.auth and tx.clientID, so an app can refuse a write', async () => {
    t = await startTestServer({
      mutators: {
        async ownedPut(tx, args: { key: string; value: string }) {
          const auth = authOf(tx)!;
          const current = (await tx.get(args.key)) as { owner: string } | undefined;
          if (current !== undefined && current.owner !== auth.userID) throw new Error('only the owner may change it');
          await tx.put(args.key, { owner: auth.userID, value: args.value, by: tx.clientID });
        },
      },
    });
    const roomID = uniqueID('room');
    const alice = t.connect({ roomID, token: 'alice' });
    const bob = t.connect({ roomID, token: 'bob' });
    await Promise.all([alice.ready(), bob.ready()]);
    alice.mutate('ownedPut', { key: 'doc', value: 'v1' });
    await alice.acked(1);
    bob.mutate('ownedPut', { key: 'doc', value: 'hijacked' });
    await bob.acked(1);
    expect(bob.state.get('doc')).toEqual({ owner: 'alice', value: 'v1', by: alice.clientID });
  });
});

describe('mutation recovery pushes (another client group of the same user)', () => {
  it('accepts a push for another group of the same user and reflects it in that group\'s pull answer', async () => {
    t = await startTestServer();
    const roomID = uniqueID('room');
    // The closed tab's group had a client that pushed once; its second mutation never left the tab.
    const closedTab = t.connect({ roomID, token: 'alice' });
    await closedTab.ready();
    closedTab.mutate('put', { key: 'x', value: 1 });
    await closedTab.acked(1);
    await closedTab.close();
    const other = t.connect({ roomID, token: 'alice' });
    await other.ready();
    const newClient = uniqueID('client');
    other.push(
      [
        other.mutation('put', { key: 'x', value: 2 }, 2, closedTab.clientID),
        other.mutation('put', { key: 'y', value: 1 }, 1, newClient),
      ],
      closedTab.clientGroupID,
    );
    await other.until(() => other.state.get('y') === 1);
    expect(other.errors).toEqual([]);
    other.sendRaw(JSON.stringify(['pull', { clientGroupID: closedTab.clientGroupID, cookie: null, requestID: 'recover-1' }]));
    await other.until(() => other.messages.some((m) => m[0] === 'pull'));
    const answer = other.messages.find((m) => m[0] === 'pull')![1];
    expect(answer).toEqual({ cookie: other.cookie, lastMutationIDChanges: { [closedTab.clientID]: 2, [newClient]: 1 }, requestID: 'recover-1' });
    // Re-pushing the same recovery is idempotent.
    other.push([other.mutation('put', { key: 'x', value: 99 }, 2, closedTab.clientID)], closedTab.clientGroupID);
    other.sendRaw(JSON.stringify(['ping', {}]));
    await other.until(() => other.messages.some((m) => m[0] === 'pong'));
    expect(other.state.get('x')).toBe(2);
  });

  it('refuses a recovery push for another user\'s group', async () => {
    t = await startTestServer();
    const roomID = uniqueID('room');
    const alice = t.connect({ roomID, token: 'alice' });
    await alice.ready();
    alice.mutate('put', { key: 'x', value: 1 });
    await alice.acked(1);
    const bob = t.connect({ roomID, token: 'bob' });
    await bob.ready();
    bob.push([bob.mutation('put', { key: 'x', value: 'mine' }, 2, alice.clientID)], alice.clientGroupID);
    await bob.until(() => bob.closed);
    expect(bob.errors[0]?.[0]).toBe('Unauthorized');
  });

  it('takes at most newClientsPerUser new clients of one user a window, by pushes naming new client ids and by connects; other users are not held back', async () => {
    t = await startTestServer({ newClientsPerUser: 3 });
    const roomID = uniqueID('room');
    const mallory = t.connect({ roomID, token: 'mallory' });
    await mallory.ready();
    // Her own client was the first; a push naming 5 more new ones is refused at the third new one.
    mallory.push([1, 2, 3, 4, 5].map((i) => mallory.mutation('put', { key: `k${i}`, value: i }, 1, `${mallory.clientID}-${i}`)));
    await mallory.until(() => mallory.closed);
    expect(mallory.errors).toEqual([['InvalidPush', `Room ${roomID} takes at most 3 new clients of one user an hour; try again later`]]);
    // Also after the room unloaded (its last client left) and loaded again.
    const loaded = async () => ((await t!.admin('GET', '/stats')).json.rooms as { roomID: string }[]).some((r) => r.roomID === roomID);
    await vi.waitFor(async () => expect(await loaded()).toBe(false));
    const again = t.connect({ roomID, token: 'mallory' });
    await again.until(() => again.closed);
    expect(again.errors).toEqual([['InvalidConnectionRequest', `Room ${roomID} takes at most 3 new clients of one user an hour; try again later`]]);
    const bob = t.connect({ roomID, token: 'bob' });
    await bob.ready();
    const { json } = await t.admin('GET', '/stats');
    const room = (json.rooms as { roomID: string; clients: number }[]).find((r) => r.roomID === roomID)!;
    expect(room.clients).toBe(4);
  });

  it('counts a new client only once every check passed: a refused connect or push takes nothing of the budget', async () => {
    t = await startTestServer({ newClientsPerUser: 1 });
    const roomID = uniqueID('room');
    const stuck = t.connect({ roomID, token: 'carol', baseCookie: 99 });
    await stuck.until(() => stuck.closed);
    expect(stuck.errors[0]?.[1]).toMatch(/Unexpected baseCookie 99/);
    const fresh = t.connect({ roomID, token: 'carol' });
    await fresh.ready();
  });

  it("gives each anonymous visitor's address a budget of its own: one cannot use up every other's", async () => {
    t = await startTestServer({ allowAnonymous: true, newClientsPerUser: 2 });
    const roomID = uniqueID('room');
    const anonymous = (localAddress: string) => {
      const url = buildConnectURL(t!.url, { clientID: uniqueID('c'), clientGroupID: uniqueID('g'), roomID, baseCookie: null, ts: 1, lmid: 0, wsid: newWsid() });
      const ws = new WebSocket(url, { localAddress });
      return new Promise<string>((resolve) => {
        ws.on('message', (d) => {
          resolve(String(d).slice(0, 12));
          ws.close();
        });
        ws.on('error', (e) => resolve(e.message));
      });
    };
    expect([await anonymous('127.0.0.3'), await anonymous('127.0.0.3'), await anonymous('127.0.0.3')]).toEqual(['["connected"', '["connected"', '["error","In']);
    expect(await anonymous('127.0.0.4')).toBe('["connected"');
  });
});
