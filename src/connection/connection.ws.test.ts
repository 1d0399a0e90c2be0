import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { PushBody } from '../protocol/generated/types';
import { Connection } from './connection';
import { alwaysOn } from './default-environment';
import { FakeClock } from './testing/fake-clock';
import { ModelSyncTarget } from './testing/model-sync-target';

/** One accepted server-side socket, with its frames queued for the script to read. */
class ServerSide {
  readonly frames: unknown[] = [];
  readonly #waiters: (() => void)[] = [];

  constructor(
    readonly socket: WebSocket,
    readonly request: IncomingMessage,
  ) {
    socket.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)) as unknown);
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  get query(): URLSearchParams {
    return new URL(this.request.url ?? '', 'ws://x').searchParams;
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  /** The next frame named `name` (skipping pings, which it answers). */
  async next(name: string): Promise<unknown[]> {
    for (;;) {
      const index = this.frames.findIndex((f) => (f as unknown[])[0] === name);
      if (index >= 0) return this.frames.splice(index, 1)[0] as unknown[];
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }
}

class ScriptedServer {
  readonly wss: WebSocketServer;
  readonly #accepted: ServerSide[] = [];
  readonly #waiters: (() => void)[] = [];
  #taken = 0;

  constructor() {
    this.wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: (protocols) => [...protocols][0] ?? false });
    this.wss.on('connection', (socket, request) => {
      this.#accepted.push(new ServerSide(socket, request));
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  async ready(): Promise<string> {
    if (this.wss.address() === null) await once(this.wss, 'listening');
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}`;
  }

  async nextConnection(): Promise<ServerSide> {
    while (this.#accepted.length <= this.#taken) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    return this.#accepted[this.#taken++]!;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise((resolve) => this.wss.close(resolve));
  }
}

describe('over real ws sockets', () => {
  let cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  it('authenticates, connects, takes pokes, pushes, pulls and recovers from a dropped socket', async () => {
    const server = new ScriptedServer();
    const origin = await server.ready();
    cleanup.push(() => server.close());
    const clock = new FakeClock(1_000);
    const target = new ModelSyncTarget('c1', () => clock.now());
    let tokens = 0;
    const online: boolean[] = [];
    const connection = new Connection({
      socketOrigin: origin,
      clientID: 'c1',
      clientGroupID: 'g1',
      roomID: 'r1',
      schemaVersion: 'v7',
      auth: async () => `tok-${++tokens}`,
      syncTarget: target,
      environment: { clock, timers: clock, random: Math.random, WebSocket, visibility: alwaysOn, network: alwaysOn },
      onOnlineChange: (value) => online.push(value),
    });
    cleanup.push(async () => connection.close());
    connection.start();

    // 1: the token is refused; the client retries at once with a fresh one.
    const first = await server.nextConnection();
    expect(first.request.url).toMatch(/^\/api\/sync\/v1\/connect\?/);
    expect(Object.fromEntries(first.query)).toMatchObject({ clientID: 'c1', clientGroupID: 'g1', roomID: 'r1', baseCookie: '', lmid: '0', ts: '1000' });
    expect(first.query.get('wsid')).toMatch(/^[A-Za-z0-9_-]{21}$/);
    expect(first.socket.protocol).toBe('tok-1');
    first.send(['error', 'Unauthorized', 'bad token']);
    first.socket.close();

    // 2: connected, a catch-up poke, a push and its acknowledgement, a recovery pull.
    const second = await server.nextConnection();
    expect(second.socket.protocol).toBe('tok-2');
    second.send(['connected', { wsid: second.query.get('wsid') }]);
    second.send(['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'a', value: 1 }], requestID: 'q1' }]);
    await vi.waitFor(() => expect(target.cookie).toBe(1));
    expect(connection.online).toBe(true);

    target.mutate('inc', { by: 2 });
    const [, push] = (await second.next('push')) as ['push', PushBody];
    expect(push).toMatchObject({ clientGroupID: 'g1', pushVersion: 1, schemaVersion: 'v7', timestamp: 1000 });
    expect(push.mutations).toEqual([{ id: 1, clientID: 'c1', name: 'inc', args: { by: 2 }, timestamp: 1000 }]);
    second.send(['poke', { baseCookie: 1, cookie: 2, lastMutationIDChanges: { c1: 1 }, patch: [{ op: 'put', key: 'count', value: 2 }], requestID: 'q2' }]);
    await vi.waitFor(() => expect(target.pendingMutations()).toEqual([]));
    expect(Object.fromEntries(target.data)).toEqual({ a: 1, count: 2 });

    const pulled = connection.pull('other-group', null);
    const [, pullRequest] = (await second.next('pull')) as ['pull', { requestID: string; clientGroupID: string; cookie: null }];
    expect(pullRequest).toMatchObject({ clientGroupID: 'other-group', cookie: null });
    second.send(['pull', { cookie: 2, lastMutationIDChanges: { other: 4 }, requestID: pullRequest.requestID }]);
    await expect(pulled).resolves.toMatchObject({ cookie: 2, lastMutationIDChanges: { other: 4 } });

    // 3: the socket dies; a mutation made offline goes out on the next socket.
    second.socket.terminate();
    await vi.waitFor(() => expect(connection.online).toBe(false));
    target.mutate('inc', { by: 3 });
    await clock.advance(5_000);
    const third = await server.nextConnection();
    expect(third.query.get('baseCookie')).toBe('2');
    expect(third.query.get('lmid')).toBe('1');
    expect(third.socket.protocol).toBe('tok-2');
    third.send(['connected', { wsid: third.query.get('wsid') }]);
    const [, resent] = (await third.next('push')) as ['push', PushBody];
    expect(resent.mutations.map((m) => m.id)).toEqual([2]);
    expect(online).toEqual([true, false, true]);
  });

  it('reads an invalid frame from the server as InvalidMessage and closes the socket', async () => {
    const server = new ScriptedServer();
    const origin = await server.ready();
    cleanup.push(() => server.close());
    const clock = new FakeClock();
    const connection = new Connection({
      socketOrigin: origin,
      clientID: 'c1',
      clientGroupID: 'g1',
      roomID: 'r1',
      schemaVersion: '1',
      syncTarget: new ModelSyncTarget('c1'),
      environment: { clock, timers: clock, random: Math.random, WebSocket, visibility: alwaysOn, network: alwaysOn },
    });
    cleanup.push(async () => connection.close());
    connection.start();
    const side = await server.nextConnection();
    expect(side.socket.protocol).toBe('');
    side.send(['connected', { wsid: side.query.get('wsid') }]);
    await vi.waitFor(() => expect(connection.phase).toBe('connected'));
    side.socket.send('{not json');
    const [code, reason] = (await once(side.socket, 'close')) as [number, Buffer];
    expect(code).toBe(1000);
    expect(String(reason)).toBe('InvalidMessage');
    expect(connection.state.lastDisconnectReason).toBe('InvalidMessage');
  });
});
