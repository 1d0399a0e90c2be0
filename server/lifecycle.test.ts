import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStorage } from './storage/memory-storage';
import type { WriteTransaction } from '../src/db/transaction-types';
import { StaleRoomError, type BatchCommit } from './storage/types';
import { turnsUntil as until } from './test-support/event-loop';
import { uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

/** MemoryStorage whose commits wait until released, and which records the order of events. */
class GatedStorage extends MemoryStorage {
  readonly events: string[] = [];
  failNext = false;
  /** The next commit (once let through) answers that the room moved on. */
  staleNext = false;
  /** When each commit was requested, read from the server's clock (when given). */
  readonly requestedAt = new Map<string, number>();

  constructor(private readonly clock?: { now(): number }) {
    super();
  }
  private gate: Promise<void> = Promise.resolve();
  private release: () => void = () => {};

  hold(): void {
    this.gate = new Promise((resolve) => (this.release = resolve));
  }

  open(): void {
    this.release();
  }

  override async commitBatch(roomID: string, batch: BatchCommit): Promise<void> {
    this.events.push(`commit ${batch.version} requested`);
    if (this.clock !== undefined) this.requestedAt.set(`commit ${batch.version}`, this.clock.now());
    await this.gate;
    if (this.staleNext) {
      this.staleNext = false;
      this.events.push(`commit ${batch.version} stale`);
      throw new StaleRoomError(roomID, batch.baseVersion);
    }
    if (this.failNext) {
      this.failNext = false;
      this.events.push(`commit ${batch.version} failed`);
      throw new Error('disk full');
    }
    await super.commitBatch(roomID, batch);
    this.events.push(`commit ${batch.version} done`);
  }

  override async commitBatches(roomID: string, batches: readonly BatchCommit[]): Promise<void> {
    const name = `commits ${batches.map((b) => b.version).join('+')}`;
    this.events.push(`${name} requested`);
    if (this.clock !== undefined) this.requestedAt.set(name, this.clock.now());
    await this.gate;
    await super.commitBatches(roomID, batches);
    this.events.push(`${name} done`);
  }

  override async close(): Promise<void> {
    this.events.push('storage closed');
    await super.close();
  }
}

/** Waits until the room's queue says it stores a group with `n` batches run after it (admin stats). */
async function untilRunAfter(t: TestServer, roomID: string, n: number): Promise<void> {
  const want = `storing a group (${n} run after it)`;
  for (let i = 0; i < 500; i++) {
    const rooms = (await t.admin('GET', '/stats')).json.rooms as { roomID: string; queue: { activity: string } }[];
    if (rooms.find((r) => r.roomID === roomID)?.queue.activity === want) return;
  }
  throw new Error(`the room never got to ${want}`);
}

/** Pushes one mutation as a batch of its own (a pong comes after the push before it was queued). */
async function mutateAlone(c: ReturnType<TestServer['connect']>, push: () => void): Promise<void> {
  push();
  const pongs = c.messages.filter((m) => m[0] === 'pong').length;
  c.sendRaw(JSON.stringify(['ping', {}]));
  await c.until(() => c.messages.filter((m) => m[0] === 'pong').length > pongs);
}

/** A server on a GatedStorage with a ready client of one room (and a watcher of it); the storage holds the next commit. */
async function heldRoom(options: { readonly watch?: boolean; readonly clock?: { now(): number } } = {}) {
  const storage = new GatedStorage(options.clock);
  const t = await startTestServer({ storage, ...(options.clock === undefined ? {} : { clock: options.clock }) });
  const roomID = uniqueID('room');
  const c = t.connect({ roomID });
  const watcher = options.watch === true ? t.connect({ roomID }) : undefined;
  await c.ready();
  await watcher?.ready();
  storage.hold();
  return { storage, t, roomID, c, watcher: watcher! };
}

describe('lifecycle', () => {
  it('pokes only after the batch is stored', async () => {
    const storage = new GatedStorage();
    const t = await startTestServer({ storage });
    const c = t.connect({ roomID: uniqueID('room') });
    await c.ready();
    storage.hold();
    c.mutate('put', { key: 'k', value: 1 });
    await until(() => storage.events.length === 1);
    c.sendRaw(JSON.stringify(['ping', {}]));
    await c.until(() => c.messages.some((m) => m[0] === 'pong'));
    expect(storage.events).toEqual(['commit 1 requested']);
    expect(c.pokes).toHaveLength(1);
    storage.open();
    await c.acked(1);
    expect(storage.events).toEqual(['commit 1 requested', 'commit 1 done']);
    await t.close();
  });

  it('stores the batches that ran while one was being stored in one commit, and pokes each after it in version order', async () => {
    const { storage, t, c, watcher } = await heldRoom({ watch: true });
    c.mutate('put', { key: 'k', value: 1 });
    await until(() => storage.events.length === 1);
    // Each push taken alone, so each is a batch of its own.
    for (const value of [2, 3]) await mutateAlone(c, () => c.mutate('put', { key: 'k', value }));
    expect(watcher.pokes).toHaveLength(1);
    storage.open();
    await c.acked(3);
    await watcher.until(() => watcher.cookie === 3);
    expect(storage.events).toEqual(['commit 1 requested', 'commit 1 done', 'commits 2+3 requested', 'commits 2+3 done']);
    expect(watcher.pokes.slice(1).map((p) => [p.baseCookie, p.cookie])).toEqual([[0, 1], [1, 2], [2, 3]]);
    expect(watcher.outOfOrder).toEqual([]);
    await t.close();
  });

  it('sends the next group\'s commit before the pokes of the group committed before it, and pokes in version order', async () => {
    // Each read of the clock a tick later: a poke's timestamp says when it was made, against when each commit was requested.
    let tick = 1_000_000;
    const clock = { now: () => ++tick };
    const { storage, t, roomID, c, watcher } = await heldRoom({ watch: true, clock });
    c.mutate('put', { key: 'k', value: 1 });
    await until(() => storage.events.length === 1);
    await mutateAlone(c, () => c.mutate('put', { key: 'k', value: 2 }));
    await untilRunAfter(t, roomID, 1);
    storage.open();
    await c.acked(2);
    await watcher.until(() => watcher.cookie === 2);
    expect(storage.events).toEqual(['commit 1 requested', 'commit 1 done', 'commit 2 requested', 'commit 2 done']);
    const pokes = watcher.pokes.slice(1);
    expect(pokes.map((p) => [p.baseCookie, p.cookie])).toEqual([[0, 1], [1, 2]]);
    expect(watcher.outOfOrder).toEqual([]);
    // Commit 2 left before poke 1 was made; poke 2 after it.
    expect(storage.requestedAt.get('commit 2')!).toBeLessThan(pokes[0]!.timestamp!);
    expect(pokes[0]!.timestamp!).toBeLessThan(pokes[1]!.timestamp!);
    await t.close();
  });

  it('a group found stale once the group before it committed runs again, with every batch after it, once each and in order', async () => {
    const { storage, t, roomID, c, watcher } = await heldRoom({ watch: true });
    c.mutate('increment', { key: 'n', delta: 1 });
    await until(() => storage.events.length === 1);
    await mutateAlone(c, () => c.mutate('increment', { key: 'n', delta: 10 }));
    await untilRunAfter(t, roomID, 1);
    // Commit 1 goes through; commit 2 (sent as its successor) waits at a new gate.
    storage.open();
    storage.hold();
    await until(() => storage.events.length === 3);
    await c.acked(1);
    await mutateAlone(c, () => c.mutate('increment', { key: 'n', delta: 100 }));
    await untilRunAfter(t, roomID, 1);
    storage.staleNext = true;
    storage.open();
    await c.acked(3);
    await watcher.until(() => watcher.cookie === 3);
    expect(storage.events).toEqual([
      'commit 1 requested',
      'commit 1 done',
      'commit 2 requested',
      'commit 2 stale',
      'commit 2 requested',
      'commit 2 done',
      'commit 3 requested',
      'commit 3 done',
    ]);
    expect(watcher.pokes.slice(1).map((p) => [p.baseCookie, p.cookie])).toEqual([[0, 1], [1, 2], [2, 3]]);
    expect(watcher.outOfOrder).toEqual([]);
    expect(watcher.state.get('n')).toBe(111);
    expect(c.errors).toEqual([]);
    await t.close();
  });

  it('a push refused in the group after one that acknowledges the same client\'s push: the poke comes before the error', async () => {
    const { storage, t, roomID, c } = await heldRoom();
    c.mutate('put', { key: 'k', value: 1 });
    await until(() => storage.events.length === 1);
    // Mutation id 3 where 2 is expected: InvalidPush, nothing to store.
    await mutateAlone(c, () => c.push([c.mutation('put', { key: 'k', value: 3 }, 3)]));
    await untilRunAfter(t, roomID, 1);
    storage.open();
    await c.until(() => c.closed, 'close');
    const kinds = c.messages.slice(1).map((m) => (m[0] === 'poke' ? `poke ${m[1].cookie}` : m[0] === 'error' ? `error ${m[1]}` : m[0]));
    expect(kinds.filter((k) => k !== 'pong')).toEqual(['poke 0', 'poke 1', 'error InvalidPush']);
    expect(c.lmid).toBe(1);
    await t.close();
  });

  it('a failure while a stored group is answered (a logger that throws) fails the room (1011) rather than escaping the queue', async () => {
    const t = await startTestServer({
      logger: {
        debug() {},
        info() {},
        error() {},
        warn(message: string) {
          if (message.startsWith('mutation failed')) throw new Error('log sink gone');
        },
      },
      mutators: {
        refuse: () => {
          throw new Error('refused by the app');
        },
      },
    });
    const roomID = uniqueID('room');
    const c = t.connect({ roomID });
    await c.ready();
    c.mutate('refuse', {});
    await c.until(() => c.closed, 'close');
    expect(c.closeCode).toBe(1011);
    // The room was dropped and loads again from the storage, where the batch is.
    const d = t.connect({ roomID, clientID: c.clientID, clientGroupID: c.clientGroupID, lmid: 0 });
    await d.ready();
    expect(d.lmid).toBe(1);
    await t.close();
  });

  it('graceful close finishes and stores the in-flight batch before closing sockets and storage', async () => {
    const { storage, t, c } = await heldRoom();
    c.mutate('increment', { key: 'n', delta: 1 });
    await until(() => storage.events.length === 1);
    const closing = t.server.close();
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(storage.events).toEqual(['commit 1 requested']);
    storage.open();
    await closing;
    expect(storage.events).toEqual(['commit 1 requested', 'commit 1 done', 'storage closed']);
    await c.until(() => c.closed);
    expect(c.closeCode).toBe(1001);
    expect(c.lmid).toBe(1);
  });

  it('a storage failure closes the room\'s sockets (1011) without acknowledging; the room reloads from storage', async () => {
    const storage = new GatedStorage();
    const t = await startTestServer({ storage });
    const roomID = uniqueID('room');
    const c = t.connect({ roomID });
    await c.ready();
    c.mutate('put', { key: 'kept', value: 1 });
    await c.acked(1);
    storage.failNext = true;
    c.mutate('put', { key: 'lost', value: 2 });
    await c.until(() => c.closed);
    expect(c.closeCode).toBe(1011);
    expect(c.lmid).toBe(1);
    const d = t.connect({ roomID, clientID: c.clientID, clientGroupID: c.clientGroupID, lmid: 1 });
    await d.ready();
    expect(Object.fromEntries(d.state)).toEqual({ kept: 1 });
    d.push([d.mutation('put', { key: 'lost', value: 2 }, 2)]);
    await d.acked(2);
    expect(Object.fromEntries(d.state)).toEqual({ kept: 1, lost: 2 });
    await t.close();
  });

  it('fails a mutator that never settles when its timer fires, so the room goes on', async () => {
    const fired: (() => void)[] = [];
    let lateWrite: Promise<string> | undefined;
    let resume: () => void = () => {};
    const t = await startTestServer({
      mutatorTimeoutMs: 1000,
      // Only the mutator timeout's timers; the idle watch's run for real.
      timers: {
        setTimeout: (cb, ms) => (ms === 1000 ? fired.push(cb) : setTimeout(cb, ms)),
        clearTimeout: (h) => (typeof h === 'number' ? undefined : clearTimeout(h as NodeJS.Timeout)),
      },
      mutators: {
        hang: async (tx: WriteTransaction) => {
          await new Promise<void>((r) => (resume = r));
          lateWrite = tx.put('late', 1).then(
            () => 'written',
            (e: Error) => e.message,
          );
        },
      },
    });
    const c = t.connect({ roomID: uniqueID('room') });
    await c.ready();
    c.mutate('hang', {});
    c.mutate('put', { key: 'after', value: 2 });
    await until(() => fired.length === 1);
    fired[0]!();
    await c.acked(2);
    expect(Object.fromEntries(c.state)).toEqual({ after: 2 });
    resume();
    await until(() => lateWrite !== undefined);
    expect(await lateWrite).toBe('Transaction is closed');
    await t.close();
  });

  it('refuses new connections while shutting down', async () => {
    const t = await startTestServer();
    await t.server.close();
    const c = t.connect({ roomID: 'r' });
    await c.until(() => c.closed);
    expect(c.messages).toEqual([]);
  });
});

describe('HTTP', () => {
  const dir = mkdtempSync(join(tmpdir(), 'roomsync-static-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(join(dir, '..', 'secret-roomsync.txt'), { force: true });
  });
  writeFileSync(join(dir, 'index.html'), '<h1>app</h1>');
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, '..', 'secret-roomsync.txt'), 'secret');

  it('serves static files with an index.html fallback for client routes', async () => {
    const t = await startTestServer({ staticDir: dir });
    const base = t.url.replace('ws://', 'http://');
    const get = async (path: string) => {
      const res = await fetch(`${base}${path}`);
      return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
    };
    expect(await get('/')).toEqual({ status: 200, type: 'text/html; charset=utf-8', body: '<h1>app</h1>' });
    expect(await get('/rooms/42')).toMatchObject({ status: 200, body: '<h1>app</h1>' });
    expect(await get('/assets/app.js')).toMatchObject({ status: 200, type: 'text/javascript; charset=utf-8' });
    expect((await get('/assets/missing.js')).status).toBe(404);
    expect((await get('/..%2fsecret-roomsync.txt')).body).not.toBe('secret');
    expect((await get('/healthz')).body).toBe('ok');
    expect((await get('/api/sync/v1/connect')).status).toBe(426);
    await t.close();
  });

  it('answers 404 without a static directory', async () => {
    const t = await startTestServer();
    expect((await fetch(`${t.url.replace('ws://', 'http://')}/`)).status).toBe(404);
    await t.close();
  });
});
