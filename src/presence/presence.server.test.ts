/**
 * Presence through the reference server over real sockets: clients on the
 * client library, and a bare protocol client as an original one would be.
 * Time is a fake clock shared by the server and the clients; real I/O runs
 * between its steps.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PRESENCE_KEY_PREFIX } from '../../protocol/presence';
import { conformanceMutators } from '../../server/conformance-mutators';
import { createServer, DEFAULT_PRESENCE_GRACE_MS, SqliteStorage, type ServerOptions } from '../../server/index';
import { TestClient } from '../../server/test-support/test-client';
import { alwaysOn } from '../connection/default-environment';
import { FakeClock } from '../connection/testing/fake-clock';
import type { WriteTransaction } from '../db/transaction-types';
import { MemoryKvProvider } from '../kv/memory-provider';
import { Reflect } from '../reflect';
import { PresenceStateError } from './errors';
import type { Presence } from './presence-view';
import { CutProxy } from './testing/cut-proxy';

const ROOM_ID = 'presence-room';
const GRACE_MS = DEFAULT_PRESENCE_GRACE_MS;
const STEP_MS = 20;
const ADMIN_KEY = 'presence-test-admin-key';
/** Real time a step waits for socket I/O while fake time stands still. */
const REAL_WAIT_MS = 10_000;

const mutators = {
  ...conformanceMutators,
  /** An app mutator that tries to forge a presence entry: the server refuses it. */
  async forge(tx: WriteTransaction) {
    await tx.put(`${PRESENCE_KEY_PREFIX}fake`, { clientID: 'fake', userID: 'ghost', state: null, node: 'x' });
  },
};

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

let kvNamespace = 0;

function world(clock = new FakeClock(1_700_000_000_000)) {
  async function server(options: ServerOptions & { port?: number } = {}) {
    const { port = 0, ...rest } = options;
    const s = createServer({ mutators, clock, timers: clock, adminKey: ADMIN_KEY, ...rest });
    const info = await s.listen(port, '127.0.0.1');
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await s.close();
    };
    cleanup.push(close);
    /** Open connections as the server counts them (its admin stats). */
    const connections = async (): Promise<number> => {
      const res = await fetch(`${info.adminURL}/stats`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      return ((await res.json()) as { connections: number }).connections;
    };
    return { port: info.port, url: info.url, close, connections };
  }

  function client(options: { userID: string; port: number; auth?: string; kv?: MemoryKvProvider }) {
    const r = new Reflect({
      userID: options.userID,
      roomID: ROOM_ID,
      socketOrigin: `ws://127.0.0.1:${options.port}`,
      auth: options.auth ?? options.userID,
      mutators,
      logSinks: [],
      kvStore: options.kv ?? new MemoryKvProvider(`presence-${kvNamespace++}`),
      environment: { WebSocket, clock, timers: clock, visibility: alwaysOn, network: alwaysOn },
    });
    cleanup.push(() => r.close());
    const history: Presence[] = [];
    r.subscribeToPresence((p) => history.push(p));
    return {
      r,
      history,
      get presence(): Presence | undefined {
        return history[history.length - 1];
      },
      /** "user×clients" per user, e.g. ['alice×2', 'bob×1']. */
      get users(): string[] {
        return (history[history.length - 1]?.users ?? []).map((u) => `${u.userID}×${u.clients.length}`);
      },
    };
  }

  /** Moves fake time in steps, letting real socket I/O run between them, until `done`. */
  async function until(done: () => boolean, what: string, budgetMs = 30_000): Promise<void> {
    const start = clock.now();
    while (!done()) {
      if (clock.now() - start > budgetMs) throw new Error(`not ${what} after ${budgetMs} ms (fake time)`);
      await step();
    }
  }

  async function advance(ms: number): Promise<void> {
    const end = clock.now() + ms;
    while (clock.now() < end) await step(Math.min(STEP_MS, end - clock.now()));
  }

  async function step(ms = STEP_MS): Promise<void> {
    await clock.advance(ms);
    await realTick();
  }

  /** Waits in real time, fake time standing still, for what only socket I/O can bring. */
  async function settle(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
    const start = Date.now();
    while (!(await done())) {
      if (Date.now() - start > REAL_WAIT_MS) throw new Error(`not ${what} with fake time stopped at ${clock.now()}`);
      await realTick();
    }
  }

  return { clock, server, client, until, advance, settle };
}

function realTick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1));
}

describe('presence through the reference server', () => {
  it('two users in three tabs are two present users; each tab is listed with its user id and state', async () => {
    const w = world();
    const { port } = await w.server();
    const aliceTabs = new MemoryKvProvider('presence-alice-tabs');
    const tabs = [w.client({ userID: 'alice', port, kv: aliceTabs }), w.client({ userID: 'alice', port, kv: aliceTabs }), w.client({ userID: 'bob', port })];
    await w.until(() => tabs.every((t) => t.users.join() === 'alice×2,bob×1'), 'everyone sees alice (2 tabs) and bob');
    for (const [i, t] of tabs.entries()) {
      const p = t.presence!;
      expect(p.clients).toHaveLength(3);
      expect(p.users.map((u) => u.isSelf)).toEqual(i < 2 ? [true, false] : [false, true]);
      expect(p.clients.filter((c) => c.isSelf).map((c) => c.clientID)).toEqual([t.r.clientID]);
    }

    tabs[0]!.r.setPresence({ cursor: { x: 10, y: 20 } });
    const bob = tabs[2]!;
    await w.until(() => bob.presence!.clients.find((c) => c.clientID === tabs[0]!.r.clientID)?.state !== null, "alice's cursor to reach bob");
    expect(bob.presence!.users[0]!.clients.map((c) => c.state)).toEqual(
      tabs[0]!.r.clientID < tabs[1]!.r.clientID ? [{ cursor: { x: 10, y: 20 } }, null] : [null, { cursor: { x: 10, y: 20 } }],
    );
  });

  it('a 2 s network blip changes nothing anyone sees: the client is back within the grace period', async () => {
    const w = world();
    const { port } = await w.server();
    const proxy = await CutProxy.start(port);
    cleanup.push(() => proxy.close());
    const alice = w.client({ userID: 'alice', port: proxy.port });
    const bob = w.client({ userID: 'bob', port });
    alice.r.setPresence({ cursor: 1 });
    await w.until(() => bob.presence?.clients.some((c) => c.userID === 'alice' && c.state !== null) === true, "alice's state to reach bob");
    const seenBefore = bob.history.length;

    proxy.cut();
    await w.until(() => alice.r.connectionStatus.state !== 'connected', 'alice to see the drop');
    const cutAt = w.clock.now();
    await w.advance(2000);
    proxy.restore();
    await w.until(() => alice.r.connectionStatus.state === 'connected', 'alice to be back', GRACE_MS);
    expect(w.clock.now() - cutAt).toBeLessThan(GRACE_MS);
    await w.advance(GRACE_MS * 2);

    expect(bob.history.slice(seenBefore)).toEqual([]);
    expect(bob.users).toEqual(['alice×1', 'bob×1']);
    expect(alice.users).toEqual(['alice×1', 'bob×1']);
  });

  it('a closed tab is gone within the grace period, and not before; the other tab keeps its user present', async () => {
    const w = world();
    const { port, connections } = await w.server();
    const aliceTabs = new MemoryKvProvider('presence-closing-tabs');
    const [first, second] = [w.client({ userID: 'alice', port, kv: aliceTabs }), w.client({ userID: 'alice', port, kv: aliceTabs })];
    const bob = w.client({ userID: 'bob', port });
    await w.until(() => bob.users.join() === 'alice×2,bob×1', 'bob to see both tabs');
    const seenBefore = bob.history.length;

    await second.r.close();
    // The grace period starts when the server sees the socket close, which only real I/O decides.
    await w.settle(async () => (await connections()) === 2, 'the server to see the tab close');
    await w.advance(GRACE_MS - STEP_MS);
    expect(bob.users).toEqual(['alice×2', 'bob×1']);
    await w.advance(2 * STEP_MS);
    // Fake time stops at grace + one step: the leave fired, so its poke reaches bob however slow the sockets are.
    await w.settle(() => bob.users.join() === 'alice×1,bob×1', "the closed tab's entry to go");
    expect(bob.history.slice(seenBefore).map((p) => p.users.length)).toEqual([2]);

    await first.r.close();
    await w.settle(async () => (await connections()) === 1, 'the server to see the last tab close');
    await w.advance(GRACE_MS + STEP_MS);
    await w.settle(() => bob.users.join() === 'bob×1', 'alice to be gone');
  });

  it('an original-protocol client converges through the server, sees presence as data and is listed as present itself', async () => {
    const w = world();
    const { port, url } = await w.server();
    const bob = w.client({ userID: 'bob', port });
    const raw = TestClient.connect(url, { roomID: ROOM_ID, token: 'olga' });
    cleanup.push(() => raw.close());
    await w.until(() => bob.users.join() === 'bob×1,olga×1', 'bob to see the original client');
    bob.r.setPresence({ cursor: 3 });
    raw.mutate('put', { key: 'todo/1', value: 'from an original client' });
    await w.until(() => raw.state.get(`${PRESENCE_KEY_PREFIX}${bob.r.clientID}`) !== undefined && raw.state.has('todo/1'), 'the raw client to have both');
    await w.until(() => bob.r.pendingMutationCount === 0 && (raw.state.get(`${PRESENCE_KEY_PREFIX}${bob.r.clientID}`) as { state: unknown }).state !== null, 'the state to reach the raw client');
    expect(raw.state.get(`${PRESENCE_KEY_PREFIX}${bob.r.clientID}`)).toEqual({ clientID: bob.r.clientID, userID: 'bob', state: { cursor: 3 }, node: expect.any(String) });
    const bobSees = await bob.r.query((tx) => tx.scan().entries().toArray());
    expect(Object.fromEntries(bobSees)).toEqual(Object.fromEntries(raw.state));
  });

  it('the user id is the server auth\'s; presence keys cannot be written by app mutators; a state too large is refused at once', async () => {
    const w = world();
    const { port } = await w.server();
    const forger = w.client({ userID: 'alice', auth: 'alice-at-auth', port });
    const bob = w.client({ userID: 'bob', port });
    await w.until(() => bob.users.join() === 'alice-at-auth×1,bob×1', 'bob to see the authenticated user id');
    expect(forger.presence!.users.find((u) => u.isSelf)?.userID).toBe('alice-at-auth');

    await forger.r.mutate.forge();
    await w.until(() => forger.r.pendingMutationCount === 0 && forger.users.join() === 'alice-at-auth×1,bob×1', 'the forged entry to be undone');
    expect(bob.history.some((p) => p.users.some((u) => u.userID === 'ghost'))).toBe(false);

    expect(() => forger.r.setPresence({ big: 'x'.repeat(4096) })).toThrow(PresenceStateError);
    expect(() => forger.r.setPresence({ when: new Date() } as never)).toThrow(PresenceStateError);
    await w.advance(200);
    expect(bob.presence!.clients.every((c) => c.state === null)).toBe(true);
  });

  it('works with rooms in worker threads', async () => {
    const w = world();
    const { port } = await w.server({
      mutators: undefined,
      mutatorsModule: { url: new URL('../../server/conformance-mutators.ts', import.meta.url).href, exportName: 'conformanceMutators' },
      roomWorkers: 1,
    });
    const alice = w.client({ userID: 'alice', port });
    const bob = w.client({ userID: 'bob', port });
    alice.r.setPresence('here');
    await w.until(() => bob.presence?.clients.find((c) => c.userID === 'alice')?.state === 'here', "alice's state to reach bob");
  });

  it('after a server restart the clients that come back never vanish; entries of those that do not are removed after the grace period', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roomsync-presence-'));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'rooms.sqlite');
    const w = world();
    const first = await w.server({ storage: new SqliteStorage({ path }) });
    const [alice, bob, carol] = ['alice', 'bob', 'carol'].map((userID) => w.client({ userID, port: first.port }));
    alice!.r.setPresence({ cursor: 7 });
    await w.until(() => bob!.users.join() === 'alice×1,bob×1,carol×1' && bob!.presence!.clients[0]!.state !== null, 'bob to see everyone');
    const seenBefore = bob!.history.length;

    await first.close();
    await carol!.r.close();
    await w.server({ storage: new SqliteStorage({ path }), port: first.port });
    await w.until(() => [alice, bob].every((c) => c!.r.connectionStatus.state === 'connected'), 'alice and bob to be back');
    await w.until(() => bob!.users.join() === 'alice×1,bob×1', "carol's entry to be removed", GRACE_MS * 2);
    expect(bob!.history.slice(seenBefore).every((p) => p.clients.some((c) => c.userID === 'alice' && (c.state as { cursor: number }).cursor === 7))).toBe(true);
    expect(bob!.history.slice(seenBefore).map((p) => p.users.length)).toEqual([2]);
  });
});
