import { afterEach, describe, expect, it } from 'vitest';
import { alwaysOn } from './connection/default-environment';
import { FakeClock } from './connection/testing/fake-clock';
import { FakeSocketServer } from './connection/testing/fake-socket';
import { seededRandom } from './connection/testing/harness';
import type { WriteTransaction } from './db/transaction-types';
import { MemoryKvProvider } from './kv/memory-provider';
import { withWrappedWrites } from './kv/wrapped-writes.testing';
import type { KvProvider } from './kv/provider';
import type { KvStore } from './kv/types';
import { logStoreName } from './persist/store-names';
import { PersistentDagStore } from './dag/store';
import { readClients, readGroups } from './persist/records';
import { Tabs } from './persist/testing/tabs';
import { CLIENT_GC_INTERVAL_MS } from '../protocol/constants';
import { MutationTooLargeError, PUSH_MAX_FRAME_BYTES } from './connection/push-limits';
import { Reflect, storeName, type ConnectionStatus } from './reflect';

const mutators = {
  put: async (tx: WriteTransaction, args: { key: string; value: number }) => {
    await tx.put(args.key, args.value);
  },
  bump: async (tx: WriteTransaction) => {
    const value = ((await tx.get('n')) as number | undefined) ?? 0;
    await tx.put('n', value + 1);
    return value + 1;
  },
};

let storeCount = 0;
const opened: Reflect<typeof mutators>[] = [];

function setup(socketOrigin: string | null = 'ws://sync.test') {
  const clock = new FakeClock(1000);
  const server = new FakeSocketServer(() => clock.now());
  const online: boolean[] = [];
  const r = new Reflect({
    userID: 'user-1',
    roomID: 'room-1',
    socketOrigin,
    auth: 'tok',
    schemaVersion: '3',
    mutators,
    logSinks: [],
    onOnlineChange: (value) => online.push(value),
    environment: { clock, timers: clock, random: seededRandom(7), WebSocket: server.WebSocket, visibility: alwaysOn, network: alwaysOn },
    kvStore: new MemoryKvProvider(`reflect-test-${++storeCount}`),
  });
  opened.push(r);
  return { r, clock, server, online };
}

afterEach(async () => {
  for (const r of opened.splice(0)) await r.close();
});

describe('ReflectOptions validation', () => {
  it('rejects an empty userID', () => {
    expect(() => new Reflect({ userID: '', roomID: 'r', socketOrigin: null })).toThrow('ReflectOptions.userID must not be empty.');
  });

  it.each(['http://x', 'https://x', 'x', ''])('rejects the socketOrigin %j', (socketOrigin) => {
    expect(() => new Reflect({ userID: 'u', roomID: 'r', socketOrigin })).toThrow(
      "ReflectOptions.socketOrigin must use the 'ws' or 'wss' scheme.",
    );
  });

  it('what the local stores say as they start opening, before the logger is made, reaches the log sinks with the client context', async () => {
    const lines: unknown[][] = [];
    const r = new Reflect({
      userID: 'u',
      roomID: 'r',
      socketOrigin: null,
      // IndexedDB asked for where there is none (Node): the stores say so as they are chosen, at once.
      kvStore: 'idb',
      logLevel: 'warn',
      logSinks: [{ log: (level, context, ...args) => lines.push([level, context, ...args]) }],
    });
    opened.push(r as Reflect<typeof mutators>);
    await r.clientGroupID;
    expect(globalThis.indexedDB).toBeUndefined();
    expect(lines).toEqual([
      ['warn', { roomID: 'r', clientID: r.clientID }, "kvStore 'idb' was asked for, but IndexedDB is not available here; local data is kept in memory only"],
    ]);
  });

  it('derives the local store name from the user and the room', async () => {
    const { r } = setup();
    expect(r.idbName.startsWith(storeName('user-1', 'room-1'))).toBe(true);
    expect(r.idbName).toBe('roomsync:user-1:room-1:v2:3');
    expect(storeName('a-b', 'c')).not.toBe(storeName('a', 'b-c'));
    expect(r.schemaVersion).toBe('3');
    expect(r.clientID).not.toBe(await r.clientGroupID);
  });
});

describe('Reflect where the local stores cannot be had', () => {
  it('keeps working in memory when reading indexedDB throws (a sandboxed frame), and fails no constructor', async () => {
    const had = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB');
    Object.defineProperty(globalThis, 'indexedDB', {
      configurable: true,
      get() {
        throw new DOMException('access is denied for this document', 'SecurityError');
      },
    });
    try {
      const r = new Reflect({ userID: 'sandboxed', roomID: `room-${++storeCount}`, socketOrigin: null, mutators, logSinks: [] });
      opened.push(r);
      await r.mutate.put({ key: 'a', value: 1 });
      expect(await r.query((tx) => tx.get('a'))).toBe(1);
    } finally {
      if (had === undefined) delete (globalThis as { indexedDB?: unknown }).indexedDB;
      else Object.defineProperty(globalThis, 'indexedDB', had);
    }
  });

  it('rejects its readiness, not the constructor, when a provider fails at once', async () => {
    const failing: KvProvider = {
      durable: true,
      open: () => {
        throw new Error('no stores today');
      },
      list: async () => [],
      drop: async () => {},
    };
    const r = new Reflect({ userID: 'u', roomID: `room-${++storeCount}`, socketOrigin: null, mutators, logSinks: [], kvStore: failing });
    opened.push(r);
    await expect(r.clientGroupID).rejects.toThrow('no stores today');
  });
});

describe('Reflect', () => {
  it('connects, pushes typed mutations, applies pokes and reports its status', async () => {
    const { r, clock, server, online } = setup();
    const statuses: ConnectionStatus[] = [];
    r.onConnectionStatusChange((status) => statuses.push(status));
    const counts: number[] = [];
    r.onPendingMutationCountChange((count) => counts.push(count));
    const seen: unknown[] = [];
    r.subscribe((tx) => tx.get('a'), (value) => seen.push(value));
    await clock.advance(0);
    const socket = server.last;
    expect(socket.params.get('clientID')).toBe(r.clientID);
    expect(socket.params.get('clientGroupID')).toBe(await r.clientGroupID);
    expect(socket.params.get('roomID')).toBe('room-1');
    expect(socket.protocols).toBe('tok');
    socket.connect();
    expect(r.online).toBe(true);
    expect(r.connectionStatus).toEqual({ state: 'connected', online: true });

    await r.mutate.put({ key: 'a', value: 1 });
    expect(await r.mutate.bump()).toBe(1);
    await clock.advance(0);
    expect(r.pendingMutationCount).toBe(2);
    const pushed = socket.messages.flatMap((m) => ((m as unknown[])[0] === 'push' ? (m as [string, { mutations: unknown[] }])[1].mutations : []));
    expect(pushed).toEqual([
      { id: 1, clientID: r.clientID, name: 'put', args: { key: 'a', value: 1 }, timestamp: 1000 },
      { id: 2, clientID: r.clientID, name: 'bump', args: null, timestamp: 1000 },
    ]);

    socket.deliver(['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: { [r.clientID]: 2 }, patch: [{ op: 'put', key: 'a', value: 1 }, { op: 'put', key: 'n', value: 1 }], requestID: 'q' }]);
    await clock.advance(0);
    await clock.advance(0);
    expect(r.pendingMutationCount).toBe(0);
    expect(counts).toEqual([1, 2, 0]);
    socket.deliver(['poke', { baseCookie: 1, cookie: 2, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'a', value: 5 }], requestID: 'q2' }]);
    await clock.advance(0);
    await clock.advance(0);
    expect(await r.query((tx) => tx.get('a'))).toBe(5);
    expect(seen).toEqual([undefined, 1, 5]);

    socket.drop();
    // A drop after a healthy connection is retried at once, after a jitter under a second.
    const { nextRetryAt, ...status } = r.connectionStatus;
    expect(status).toEqual({ state: 'disconnected', online: false, reason: 'AbruptClose' });
    expect(nextRetryAt).toBeGreaterThanOrEqual(clock.now());
    expect(nextRetryAt).toBeLessThan(clock.now() + 1000);
    expect(statuses.map((s) => s.state)).toEqual(['connecting', 'connected', 'disconnected']);
    expect(online).toEqual([true, false]);
  });

  it('disconnect() keeps working locally and reconnect() pushes what was done offline', async () => {
    const { r, clock, server } = setup();
    await clock.advance(0);
    server.last.connect();
    r.disconnect();
    expect(r.connectionStatus).toEqual({ state: 'disconnected', online: false, reason: 'ClientDisconnected' });
    await r.mutate.put({ key: 'k', value: 2 });
    await clock.advance(600_000);
    expect(server.sockets).toHaveLength(1);
    r.reconnect();
    await clock.advance(0);
    server.last.connect();
    await clock.advance(0);
    expect(server.last.messages).toEqual([['push', expect.objectContaining({ mutations: [expect.objectContaining({ name: 'put' })] })]]);
  });

  it('works offline-only without a socketOrigin', async () => {
    const { r, clock, server } = setup(null);
    await r.mutate.put({ key: 'x', value: 7 });
    await clock.advance(60_000);
    expect(await r.query((tx) => tx.get('x'))).toBe(7);
    expect(r.online).toBe(false);
    expect(server.sockets).toHaveLength(0);
    r.reconnect();
    expect(server.sockets).toHaveLength(0);
  });

  it('refuses at mutate time a mutation no push frame can carry, and goes on with the others', async () => {
    const { r } = setup(null);
    const huge = 'x'.repeat(PUSH_MAX_FRAME_BYTES);
    await expect(r.mutate.put({ key: 'big', value: huge as never })).rejects.toBeInstanceOf(MutationTooLargeError);
    await r.mutate.put({ key: 'small', value: 1 });
    expect(await r.query((tx) => tx.get('big'))).toBeUndefined();
    // Only the small one waits to be pushed.
    expect(r.pendingMutationCount).toBe(1);
    expect(await r.query((tx) => tx.get('small'))).toBe(1);
  });

  it("an open whose join fails to commit after the store became readable: reads then fail with its error, and the stores are closed", async () => {
    // The data store's first commit (the join's) fails (e.g. over quota) when the test says so.
    const inner = new MemoryKvProvider(`reflect-test-${++storeCount}`);
    let failCommit!: (error: Error) => void;
    const gate = new Promise<never>((_, reject) => (failCommit = reject));
    let commitsAsked = 0;
    const stores: KvStore[] = [];
    const provider = withWrappedWrites(inner, (w) => Object.assign(w, { commit: () => (++commitsAsked === 1 ? gate : Promise.reject(new Error('unexpected commit'))) }), {
      wrapped: (name) => !name.endsWith(logStoreName('')),
      opened: (kv) => stores.push(kv),
    });
    const clock = new FakeClock(1000);
    const errors: unknown[] = [];
    const r = new Reflect({
      userID: 'user-1',
      roomID: 'room-1',
      socketOrigin: null,
      mutators,
      logSinks: [],
      environment: { clock, timers: clock, random: seededRandom(7), visibility: alwaysOn, network: alwaysOn },
      kvStore: provider,
    });
    opened.push(r);
    // Readable while the join commits.
    expect(await r.query((tx) => tx.get('n'))).toBe(undefined);
    expect(commitsAsked).toBe(1);
    const quota = new Error('QuotaExceededError');
    failCommit(quota);
    await expect(r.clientGroupID).rejects.toBe(quota);
    await expect(r.query((tx) => tx.get('n'))).rejects.toBe(quota);
    r.subscribe((tx) => tx.get('n'), { onData: () => errors.push('data'), onError: (error) => errors.push(error) });
    await clock.advance(0);
    expect(errors).toEqual([quota]);
    expect(stores.length).toBe(2);
    expect(stores.every((kv) => kv.closed)).toBe(true);
    await r.close();
  });

  it("a client whose log the provider refused (kept in memory beside the durable data store) collects no group another client's durable log holds", async () => {
    const inner = new MemoryKvProvider(`reflect-test-${++storeCount}`);
    const dataName = 'roomsync:user-1:room-1:v2:3';
    // A tab of another build crashed with a mutation only in its (durable) log.
    const tabs = new Tabs({ frozen: true, provider: inner, dataName, logName: logStoreName(dataName) });
    const crashed = await tabs.open({ id: 'crashed', mutators: { put: async () => {}, other: async () => {} } });
    await crashed.client.store.mutate('put', {});
    tabs.crash(crashed);
    const refusing: KvProvider = {
      durable: true,
      list: () => inner.list(),
      drop: (name) => inner.drop(name),
      open: (name) => (name === logStoreName(dataName) ? Promise.reject(new Error('refused')) : inner.open(name)),
    };
    // Eight days later (the crashed client is collected), with the log refused.
    const clock = new FakeClock(tabs.clock.now() + 8 * 24 * 60 * 60 * 1000);
    const r = new Reflect({
      userID: 'user-1',
      roomID: 'room-1',
      socketOrigin: null,
      schemaVersion: '3',
      mutators,
      logSinks: [],
      environment: { clock, timers: clock, random: seededRandom(7), visibility: alwaysOn, network: alwaysOn },
      kvStore: refusing,
    });
    opened.push(r);
    expect(r.idbName).toBe(dataName);
    await r.clientGroupID;
    await clock.advance(2 * CLIENT_GC_INTERVAL_MS);
    const { clients, groups } = await new PersistentDagStore(await inner.open(dataName)).withRead(async (read) => ({
      clients: await readClients(read),
      groups: await readGroups(read),
    }));
    expect(clients.has('crashed')).toBe(false);
    expect([...groups.keys()]).toContain('group-of-crashed');
    await r.close();
  });

  it('close() closes the socket and the store', async () => {
    const { r, clock, server } = setup();
    await clock.advance(0);
    server.last.connect();
    expect(r.closed).toBe(false);
    await r.close();
    expect(r.closed).toBe(true);
    expect(server.last.closedByClient?.reason).toBe('ClientClosed');
    expect(r.online).toBe(false);
    await expect(r.mutate.put({ key: 'late', value: 1 })).rejects.toThrow();
  });

  it('types mutate from the mutator definitions', () => {
    const { r } = setup(null);
    // @ts-expect-error: value must be a number
    void r.mutate.put({ key: 'a', value: 'nope' }).catch(() => {});
    // @ts-expect-error: no such mutator
    void r.mutate.missing;
    const result: Promise<number> = r.mutate.bump();
    result.catch(() => {});
  });
});

