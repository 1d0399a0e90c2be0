import type { PullRequestBody, PushBody } from '../src/protocol';
import { CLOSE_INTERNAL_ERROR, type ClientConnection } from './client-connection';
import type { Clock } from './clock';
import { ClientError, StorageError } from './errors';
import type { FailureLog } from './failure-log';
import {
  EngineLostError,
  type BatchRequest,
  type BatchResult,
  type EngineHost,
  type MutationPlace,
  type OpenReport,
  type RoomStats,
} from './engine/engine-types';
import type { Logger } from './logger';
import { PokeFrames, pokeText } from './poke-frames';
import type { ServerCounters } from './stats';
import { StaleRoomError, type Storage } from './storage/types';

export interface RoomDeps {
  readonly storage: Storage;
  readonly host: EngineHost;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Skipped mutations are logged through this, rate-limited with counts. */
  readonly failures: FailureLog;
  readonly counters: ServerCounters;
  /** Called when the room can no longer serve (its storage failed). */
  readonly onBroken: (room: Room) => void;
  /** Called when the room has no connections and nothing queued: it may be dropped from memory. */
  readonly onIdle: (room: Room) => void;
}

type Task =
  | { readonly kind: 'push'; readonly conn: ClientConnection; readonly push: PushBody }
  | { readonly kind: 'run'; readonly run: () => void | Promise<void> };

/** Attempts at a request whose room state was lost (a stopped worker, a stale cache) before giving up. */
const MAX_ENGINE_ATTEMPTS = 4;

/**
 * One room as the sockets see it: its connections, and a queue that runs one
 * thing at a time (a batch of pushes, a connect, a pull or an admin action).
 * The room's data and mutators run in an EngineHost (this thread or a
 * worker); that state is a cache of the storage, reloaded whenever it is lost
 * or found stale. Pushes waiting when the queue is free form one batch,
 * stored durably before its pokes go out.
 */
export class Room {
  closed: boolean;
  private broken = false;
  private stopped = false;
  private open = true;
  private readonly conns = new Set<ClientConnection>();
  private readonly queue: Task[] = [];
  private running = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    readonly roomID: string,
    closed: boolean,
    private readonly deps: RoomDeps,
  ) {
    this.closed = closed;
  }

  get connectionCount(): number {
    return this.conns.size;
  }

  get isBroken(): boolean {
    return this.broken;
  }

  connections(): ClientConnection[] {
    return [...this.conns];
  }

  /** The room's figures; undefined while its state is not loaded (stats never reload it). */
  async stats(): Promise<RoomStats | undefined> {
    if (!this.open) return undefined;
    return this.deps.host.stats(this.roomID).catch(() => undefined);
  }

  /** Checks the connect request against the room, then sends `connected` and the catch-up poke. Throws ClientError. */
  connect(conn: ClientConnection): Promise<void> {
    return this.run(() => this.attach(conn));
  }

  detach(conn: ClientConnection): void {
    this.conns.delete(conn);
    this.checkIdle();
  }

  private checkIdle(): void {
    if (this.conns.size === 0 && !this.running && this.queue.length === 0 && !this.broken && !this.stopped) this.deps.onIdle(this);
  }

  push(conn: ClientConnection, push: PushBody): void {
    if (this.stopped) return;
    this.queue.push({ kind: 'push', conn, push });
    this.schedule();
  }

  /** Mutation recovery: what the server has processed for a (usually other) client group. */
  pull(conn: ClientConnection, pull: PullRequestBody): Promise<void> {
    return this.run(async () => {
      const answer = await this.engineCall(() => this.deps.host.pull(this.roomID, pull.clientGroupID));
      conn.send(['pull', { ...answer, requestID: pull.requestID }]);
    });
  }

  /** Runs `fn` when the queue reaches it. */
  run<T>(fn: () => T | Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        kind: 'run',
        run: async () => {
          try {
            resolve(await fn());
          } catch (error) {
            reject(error);
          }
        },
      });
      this.schedule();
    });
  }

  /** Stops taking pushes and resolves when everything queued is done (and stored). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.whenIdle();
  }

  whenIdle(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The room was deleted or went idle: refuse further connects and pushes, and free its state. */
  retire(): void {
    this.broken = true;
    this.deps.host.close(this.roomID);
  }

  /** Sends every connection `["error", kind, message]` and closes it. */
  disconnectAll(kind: ClientError['kind'], message: string): number {
    const n = this.conns.size;
    for (const conn of this.conns) conn.fail(kind, message);
    this.conns.clear();
    this.checkIdle();
    return n;
  }

  private schedule(): void {
    if (this.running) return;
    this.running = true;
    // A microtask, so every frame already read from the sockets joins the batch.
    queueMicrotask(() => void this.drain());
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const first = this.queue[0]!;
        if (first.kind === 'run') {
          this.queue.shift();
          await first.run();
          continue;
        }
        let n = 0;
        while (n < this.queue.length && this.queue[n]!.kind === 'push') n++;
        const pushes = this.queue.splice(0, n) as Extract<Task, { kind: 'push' }>[];
        try {
          await this.processBatch(pushes);
        } catch (error) {
          // Not expected: the state in memory can no longer be trusted; reload it from storage.
          this.fail(new StorageError(`Processing a batch of room ${this.roomID} failed`, { cause: error }));
        }
      }
    } finally {
      this.running = false;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
      this.checkIdle();
    }
  }

  /** Loads the room's state into the host again (after it was lost or found stale). */
  private async reopen(): Promise<void> {
    this.deps.host.close(this.roomID);
    const stored = await this.deps.storage.loadRoom(this.roomID);
    if (stored === undefined) throw new ClientError('RoomNotFound', this.roomID);
    // Clients bound at connect but not stored yet stay bound to their users.
    const bindings = [...this.conns].map((c) => ({ clientID: c.clientID, clientGroupID: c.clientGroupID, userID: c.userID }));
    reportUnservable(this.deps.logger, this.roomID, await this.deps.host.open(this.roomID, stored, bindings));
    this.open = true;
  }

  /** Calls the host; when the room's state was lost, reloads it from storage and calls again. */
  private async engineCall<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      if (!this.open) await this.reopen();
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof EngineLostError) || attempt >= MAX_ENGINE_ATTEMPTS) throw error;
        this.open = false;
      }
    }
  }

  private async attach(conn: ClientConnection): Promise<void> {
    if (this.broken) throw new ClientError('RoomNotFound', this.roomID);
    if (this.closed) throw new ClientError('RoomClosed', `Room ${this.roomID} is closed`);
    const p = conn.params;
    const answer = await this.engineCall(() =>
      this.deps.host.connect(this.roomID, {
        clientID: p.clientID,
        clientGroupID: p.clientGroupID,
        userID: conn.userID,
        baseCookie: p.baseCookie,
        lmid: p.lmid,
      }),
    );
    if (!answer.ok) throw new ClientError(answer.kind, answer.message);
    if (conn.isClosed) return;
    this.conns.add(conn);
    const now = this.deps.clock.now();
    conn.send(['connected', { wsid: p.wsid, timestamp: now }]);
    const c = answer.catchUp;
    if (c === undefined) return;
    conn.sendText(pokeText(c.baseCookie, c.cookie, c.lastMutationIDChanges, c.patchJSON, now, ''));
    conn.cookie = c.cookie;
    this.deps.counters.pokes++;
  }

  private async processBatch(pushes: readonly { conn: ClientConnection; push: PushBody }[]): Promise<void> {
    if (this.broken) return;
    // Connections by number in this batch (a push whose socket closed since is still applied).
    const pushers = [...new Set(pushes.map((p) => p.conn))];
    const timedOut: MutationPlace[] = [];
    const request = (): BatchRequest => ({
      pushes: pushes.map(({ conn, push }) => ({ conn: pushers.indexOf(conn), auth: conn.auth, push })),
      timedOut,
    });
    let result: BatchResult | undefined;
    for (let attempt = 1; result === undefined; attempt++) {
      try {
        if (!this.open) await this.reopen();
        result = await this.deps.host.batch(this.roomID, request());
        if (result.commit !== undefined) await this.deps.storage.commitBatch(this.roomID, result.commit);
      } catch (error) {
        const retry = (error instanceof EngineLostError || error instanceof StaleRoomError) && attempt < MAX_ENGINE_ATTEMPTS;
        if (error instanceof EngineLostError && error.timedOut !== undefined) timedOut.push(error.timedOut);
        if (!retry) {
          this.fail(new StorageError(`Storing a batch of room ${this.roomID} failed`, { cause: error }));
          return;
        }
        result = undefined;
        this.open = false;
      }
    }
    this.report(result);
    if (result.commit !== undefined) this.poke(result, pushes);
    for (const f of result.failures) pushers[f.conn]?.fail(f.kind, f.message);
  }

  private report(result: BatchResult): void {
    const { counters } = this.deps;
    counters.mutations += result.mutations;
    counters.failedMutations += result.failedCount;
    for (const f of result.failed) this.deps.failures.mutationFailed(this.roomID, f);
    if (result.failedCount > result.failed.length) this.deps.failures.moreFailed(this.roomID, result.failedCount - result.failed.length);
  }

  private poke(result: BatchResult, pushes: readonly { conn: ClientConnection; push: PushBody }[]): void {
    const commit = result.commit!;
    this.deps.counters.batches++;
    const requestIDs = new Map<ClientConnection, string>();
    for (const { conn, push } of pushes) if (!requestIDs.has(conn)) requestIDs.set(conn, push.requestID);
    const fallback = pushes[0]!.push.requestID;
    const frames = new PokeFrames(commit.version, result.patchJSON, this.deps.clock.now(), result.changesByGroup);
    for (const conn of this.conns) {
      conn.sendText(frames.frame(conn.cookie, conn.clientGroupID, requestIDs.get(conn) ?? fallback));
      conn.cookie = commit.version;
      this.deps.counters.pokes++;
    }
  }

  private fail(error: StorageError): void {
    if (this.broken) return;
    this.broken = true;
    this.deps.host.close(this.roomID);
    this.deps.logger.error('room failed; closing its connections and dropping it from memory', { roomID: this.roomID, error, cause: error.cause });
    for (const conn of this.conns) conn.close(CLOSE_INTERNAL_ERROR, 'storage failure');
    this.conns.clear();
    this.deps.onBroken(this);
  }
}

/** Stored values no client accepts (written before the depth limit) are not served: say so once per load. */
export function reportUnservable(logger: Logger, roomID: string, report: OpenReport): void {
  if (report.unservable.length === 0) return;
  logger.error('stored values nest deeper than clients accept; they are not served (rewrite or delete them)', {
    roomID,
    keys: report.unservable.slice(0, 20),
    count: report.unservable.length,
  });
}
