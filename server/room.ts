import type { MutatorDefs } from '../src/db/transaction-types';
import type { Mutation, PullRequestBody, PushBody } from '../src/protocol';
import { BatchWriter } from './batch-writer';
import { CLOSE_INTERNAL_ERROR, type ClientConnection } from './client-connection';
import type { Clock, Timers } from './clock';
import { ClientError, MutatorTimeoutError, StorageError, UnknownMutatorError } from './errors';
import type { Logger } from './logger';
import { RoomData, type ClientRecord } from './room-data';
import { ServerTransaction } from './server-transaction';
import type { ServerCounters } from './stats';
import type { Storage, StoredClient, StoredRoom } from './storage/types';

export interface RoomDeps {
  readonly storage: Storage;
  readonly mutators: MutatorDefs;
  readonly clock: Clock;
  readonly timers: Timers;
  /** A mutator not settled after this long fails (and is skipped) so it cannot stall its room. */
  readonly mutatorTimeoutMs: number;
  readonly logger: Logger;
  readonly counters: ServerCounters;
  readonly maxMutationsPerPush: number;
  readonly maxTombstones: number;
  /** Called when the room can no longer serve (its storage failed). */
  readonly onBroken: (room: Room) => void;
  /** Called when the room has no connections and nothing queued: it may be dropped from memory. */
  readonly onIdle: (room: Room) => void;
}

type Task =
  | { readonly kind: 'push'; readonly conn: ClientConnection; readonly push: PushBody }
  | { readonly kind: 'run'; readonly run: () => void | Promise<void> };

/**
 * One room: its data in memory, its connections, and a queue that runs one
 * thing at a time: a batch of pushes, a connect, a pull or an admin action.
 * Pushes are processed as soon as the queue is free; all pushes waiting then
 * form one batch, stored durably before its pokes go out.
 */
export class Room {
  closed: boolean;
  private broken = false;
  private stopped = false;
  private readonly conns = new Set<ClientConnection>();
  private readonly queue: Task[] = [];
  private running = false;
  private idleWaiters: (() => void)[] = [];
  /** Clients bound at connect whose record is not stored yet (stored with the next batch). */
  private readonly unsaved = new Set<string>();

  constructor(
    readonly roomID: string,
    readonly data: RoomData,
    closed: boolean,
    private readonly deps: RoomDeps,
  ) {
    this.closed = closed;
  }

  static fromStored(stored: StoredRoom, deps: RoomDeps): Room {
    const data = new RoomData(stored.meta.version, stored.meta.tombstoneHorizon);
    data.loadEntries(stored.entries.map((e) => [e.key, { value: e.value, version: e.version }] as const));
    for (const c of stored.clients) data.setClient(c.clientID, c);
    return new Room(stored.meta.roomID, data, stored.meta.closed, deps);
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
    return this.run(() => {
      conn.send([
        'pull',
        { cookie: this.data.version, lastMutationIDChanges: this.data.groupMutationIDs(pull.clientGroupID), requestID: pull.requestID },
      ]);
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

  private attach(conn: ClientConnection): void {
    if (this.broken) throw new ClientError('RoomNotFound', this.roomID);
    if (this.closed) throw new ClientError('RoomClosed', `Room ${this.roomID} is closed`);
    const p = conn.params;
    const known = this.data.clients.get(p.clientID);
    if (known !== undefined && known.clientGroupID !== p.clientGroupID) {
      throw new ClientError(
        'InvalidConnectionRequest',
        `Client ${p.clientID} belongs to client group ${known.clientGroupID}, not ${p.clientGroupID}`,
      );
    }
    const serverLmid = known?.lastMutationID ?? 0;
    if (p.lmid > serverLmid) {
      throw new ClientError('InvalidConnectionRequest', `Unexpected lmid ${p.lmid} for client ${p.clientID}: the server has ${serverLmid}`);
    }
    if (p.baseCookie !== null && p.baseCookie > this.data.version) {
      throw new ClientError(
        'InvalidConnectionRequest',
        `Unexpected baseCookie ${p.baseCookie}: room ${this.roomID} is at version ${this.data.version}`,
      );
    }
    if (known === undefined) {
      this.data.setClient(p.clientID, { clientGroupID: p.clientGroupID, lastMutationID: 0 });
      this.unsaved.add(p.clientID);
    }
    this.conns.add(conn);
    const now = this.deps.clock.now();
    conn.send(['connected', { wsid: p.wsid, timestamp: now }]);
    // Catch-up: sent when the client is behind, in data or in its own last mutation id.
    if (p.baseCookie === this.data.version && serverLmid === p.lmid) return;
    conn.send([
      'poke',
      {
        baseCookie: p.baseCookie,
        cookie: this.data.version,
        lastMutationIDChanges: this.data.groupMutationIDs(p.clientGroupID),
        patch: this.data.patchSince(p.baseCookie),
        timestamp: now,
        requestID: '',
      },
    ]);
    conn.cookie = this.data.version;
    this.deps.counters.pokes++;
  }

  private async processBatch(pushes: readonly { conn: ClientConnection; push: PushBody }[]): Promise<void> {
    if (this.broken) return;
    const version = this.data.version + 1;
    const batch = new BatchWriter(this.data, version);
    const changed = new Map<string, ClientRecord>();
    const failures = new Map<ClientConnection, ClientError>();
    const requestIDs = new Map<ClientConnection, string>();
    for (const { conn, push } of pushes) {
      if (failures.has(conn)) continue;
      const failure = await this.applyPush(conn, push, batch, changed);
      if (failure) failures.set(conn, failure);
      if (!requestIDs.has(conn)) requestIDs.set(conn, push.requestID);
    }
    if (changed.size > 0) await this.commit(batch, changed, pushes[0]!.push.requestID, requestIDs);
    for (const [conn, error] of failures) conn.fail(error.kind, error.message);
  }

  /** Runs the push's new mutations; returns the error that ends the connection, if any. */
  private async applyPush(
    conn: ClientConnection,
    push: PushBody,
    batch: BatchWriter,
    changed: Map<string, ClientRecord>,
  ): Promise<ClientError | undefined> {
    if (push.clientGroupID !== conn.clientGroupID) {
      return new ClientError('InvalidPush', `Push for client group ${push.clientGroupID} on a connection of client group ${conn.clientGroupID}`);
    }
    if (push.mutations.length > this.deps.maxMutationsPerPush) {
      return new ClientError('InvalidPush', `Push has ${push.mutations.length} mutations; at most ${this.deps.maxMutationsPerPush} are accepted per push`);
    }
    for (const m of push.mutations) {
      const record = changed.get(m.clientID) ?? this.data.clients.get(m.clientID);
      if (record !== undefined && record.clientGroupID !== push.clientGroupID) {
        return new ClientError('InvalidPush', `Client ${m.clientID} belongs to client group ${record.clientGroupID}, not ${push.clientGroupID}`);
      }
      const expected = (record?.lastMutationID ?? 0) + 1;
      if (m.id < expected) continue;
      if (m.id > expected) {
        return new ClientError(
          'InvalidPush',
          `Push contains unexpected mutation id ${m.id} for client ${m.clientID}. Expected mutation id ${expected}.`,
        );
      }
      await this.runMutation(conn, m, batch);
      changed.set(m.clientID, { clientGroupID: push.clientGroupID, lastMutationID: m.id });
    }
    return undefined;
  }

  private async runMutation(conn: ClientConnection, m: Mutation, batch: BatchWriter): Promise<void> {
    const tx = new ServerTransaction(m.clientID, m.id, batch);
    this.deps.counters.mutations++;
    try {
      const impl = Object.hasOwn(this.deps.mutators, m.name) ? this.deps.mutators[m.name] : undefined;
      if (impl === undefined) throw new UnknownMutatorError(m.name);
      await this.withTimeout(m, Promise.resolve(impl(tx, m.args)));
      batch.endMutation();
    } catch (error) {
      batch.rollbackMutation();
      this.deps.counters.failedMutations++;
      this.deps.logger.warn('mutation failed; skipped and counted as processed', {
        roomID: this.roomID,
        clientID: m.clientID,
        userID: conn.userID,
        mutationID: m.id,
        name: m.name,
        error,
      });
    } finally {
      tx.close();
    }
  }

  private withTimeout<T>(m: Mutation, run: Promise<T>): Promise<T> {
    const { timers, mutatorTimeoutMs } = this.deps;
    let handle: unknown;
    const timeout = new Promise<never>((_, reject) => {
      handle = timers.setTimeout(() => reject(new MutatorTimeoutError(m.name, mutatorTimeoutMs)), mutatorTimeoutMs);
    });
    return Promise.race([run, timeout]).finally(() => timers.clearTimeout(handle));
  }

  private async commit(
    batch: BatchWriter,
    changed: Map<string, ClientRecord>,
    fallbackRequestID: string,
    requestIDs: Map<ClientConnection, string>,
  ): Promise<void> {
    const { entries, patch } = batch.finish();
    const clients: StoredClient[] = [];
    for (const [clientID, r] of changed) clients.push({ clientID, ...r });
    for (const clientID of this.unsaved) {
      if (!changed.has(clientID)) clients.push({ clientID, ...this.data.clients.get(clientID)! });
    }
    const horizon = this.data.horizonKeeping(this.deps.maxTombstones);
    try {
      await this.deps.storage.commitBatch(this.roomID, {
        version: batch.version,
        entries,
        clients,
        ...(horizon === undefined ? {} : { tombstoneHorizon: horizon }),
      });
    } catch (cause) {
      batch.rollbackBatch();
      this.fail(new StorageError(`Storing a batch of room ${this.roomID} failed`, { cause }));
      return;
    }
    this.unsaved.clear();
    this.data.version = batch.version;
    for (const [clientID, r] of changed) this.data.setClient(clientID, r);
    if (horizon !== undefined) this.data.dropTombstones(horizon);
    this.deps.counters.batches++;
    const timestamp = this.deps.clock.now();
    const changesByGroup = new Map<string, Record<string, number>>();
    for (const [clientID, r] of changed) {
      let g = changesByGroup.get(r.clientGroupID);
      if (g === undefined) changesByGroup.set(r.clientGroupID, (g = {}));
      g[clientID] = r.lastMutationID;
    }
    for (const conn of this.conns) {
      conn.send([
        'poke',
        {
          baseCookie: conn.cookie,
          cookie: batch.version,
          lastMutationIDChanges: changesByGroup.get(conn.clientGroupID) ?? {},
          patch,
          timestamp,
          requestID: requestIDs.get(conn) ?? fallbackRequestID,
        },
      ]);
      conn.cookie = batch.version;
      this.deps.counters.pokes++;
    }
  }

  private fail(error: StorageError): void {
    if (this.broken) return;
    this.broken = true;
    this.deps.logger.error('room failed; closing its connections and dropping it from memory', { roomID: this.roomID, error, cause: error.cause });
    for (const conn of this.conns) conn.close(CLOSE_INTERNAL_ERROR, 'storage failure');
    this.conns.clear();
    this.deps.onBroken(this);
  }

  /** The room was deleted: refuse further connects and pushes. */
  retire(): void {
    this.broken = true;
  }

  /** Sends every connection `["error", kind, message]` and closes it. */
  disconnectAll(kind: ClientError['kind'], message: string): number {
    const n = this.conns.size;
    for (const conn of this.conns) conn.fail(kind, message);
    this.conns.clear();
    this.checkIdle();
    return n;
  }
}
