import type { PushBody } from '../src/protocol';
import { CLOSE_INTERNAL_ERROR, type ClientConnection, type PullSlot } from './client-connection';
import type { Clock, Timers } from './clock';
import { ClientError, StorageError } from './errors';
import type { FailureLog } from './failure-log';
import {
  EngineLostError,
  type HostBatchRequest,
  type HostPush,
  type BatchResult,
  type EngineHost,
  type MutationPlace,
  type OpenReport,
  type RoomDelta,
  type RoomStats,
} from './engine/engine-types';
import type { Logger } from './logger';
import { PokeFrames, pokeText } from './poke-frames';
import type { PresenceChange } from './presence/presence-change';
import { PresenceTracker, type PresenceSettings } from './presence/presence-tracker';
import type { ServerCounters } from './stats';
import { storageRetryDelayMs } from './storage-retry';
import { isSharedStorage, RoomClosedError, StaleRoomError, StorageUnavailableError, type BatchCommit, type RoomChanges, type RoomLock, type Storage, type StoredRoom } from './storage/types';

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
  /** For the waits between attempts while a shared storage is unreachable. */
  readonly timers: Timers;
  /** Who is here, written as keys with the batches; undefined: presence is off. */
  readonly presence?: PresenceSettings | undefined;
}

type Task =
  | ({ readonly kind: 'push' } & QueuedPush)
  | { readonly kind: 'presence'; readonly change: PresenceChange }
  | { readonly kind: 'run'; readonly run: () => void | Promise<void> };

/**
 * A push as it is kept until it runs: its request id (for the poke), and
 * either its body or, for a host that takes frames, only the text of its
 * frame (JSON.parse(text)[1] is the body): one copy of a push (up to a frame
 * size), not two.
 */
interface QueuedPush {
  readonly conn: ClientConnection;
  readonly requestID: string;
  readonly body: PushBody | string;
}

/** Pushes and presence changes that run as one batch. */
interface Batch {
  readonly pushes: readonly QueuedPush[];
  /** The connections that pushed, by number (a push whose socket closed since is still applied). */
  readonly pushers: readonly ClientConnection[];
  readonly presence: readonly PresenceChange[];
}

/** A batch run in the engine while the one before it was being stored. */
interface RunAhead {
  /** undefined when it could not run (it runs again in turn). */
  readonly result: BatchResult | undefined;
  /** Which load of the room's state it ran on. */
  readonly epoch: number;
  readonly timedOut: readonly MutationPlace[];
}

/** A batch run in the engine, waiting to be stored after the ones before it. */
interface RanBatch {
  readonly batch: Batch;
  readonly result: BatchResult;
  readonly epoch: number;
}

/** Batches stored in the background that must run again, and why. */
interface StoreRetry {
  readonly batches: readonly Batch[];
  readonly failure: StaleRoomError | StorageUnavailableError | RoomClosedError;
}

/** Attempts at a request whose room state was lost (a stopped worker, a stale cache) before giving up. */
const MAX_ENGINE_ATTEMPTS = 4;

/**
 * On a shared storage, a room another node wrote within this long locks its
 * row and catches up before each batch; a room written by this node alone
 * runs its batch on the cached state and commits it in one round trip (the
 * storage refuses it when the room moved on meanwhile, and it runs again locked).
 */
const SHARED_ROOM_WINDOW_MS = 2000;

/** At most this many batches are stored in one commit (a storage with commitBatches). */
const MAX_GROUP_BATCHES = 64;

/** The activity of a queue waiting for a group being stored (see storingAfter). */
const STORING_GROUP = 'storing a group';

/** Where a room's queue is (the admin API's stats). */
export interface RoomQueueState {
  /** Tasks queued (pushes, presence changes, runs). */
  readonly waiting: number;
  readonly running: boolean;
  /** What the queue awaits now. */
  readonly activity: string;
  /** The version its connections were brought to. */
  readonly version: number;
  /** Loads of its state. */
  readonly epoch: number;
  /** Its state is loaded in the engine host. */
  readonly open: boolean;
  readonly broken: boolean;
  /** How much longer its batches lock the room first (another node wrote it lately). */
  readonly sharedForMs: number;
}

/** The room's row is gone from a shared storage: another node deleted it. */
class RoomDeletedError extends Error {
  override readonly name = 'RoomDeletedError';
}

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
  /** The version every connection was brought to (the state's version once the queue is free). */
  private version: number;
  /** A refresh is queued for hints up to this version (Infinity: a hint without one); undefined when none is. */
  private refreshFor: number | undefined;
  /** The group of batches being stored while the queue runs (see drain). */
  private storing: Promise<StoreRetry | undefined> | undefined;
  /** Batches run in the engine after the group being stored, on its state, in order. */
  private ran: RanBatch[] = [];
  /** At most this many batches are stored in one commit. */
  private readonly groupLimit: number;
  /** Set while the queue waits for a batch being stored: something new arrived. */
  private wake: (() => void) | undefined;
  /** Until then (clock ms) batches lock the room first: another node wrote it lately (shared storages). */
  private sharedUntil = 0;
  /** Counts loads of the room's state into the host: a batch run on an earlier one is stale. */
  private epoch = 0;
  /** What the queue awaits now (admin stats). */
  private activity = 'idle';
  /** With activity STORING_GROUP: how many batches ran after the group (its text is made only when asked: this is set on every push). */
  private storingAfter = 0;
  /** Joins and leaves of this room's clients through this node. */
  readonly presence: PresenceTracker | undefined;

  constructor(
    readonly roomID: string,
    closed: boolean,
    private readonly deps: RoomDeps,
    version = 0,
  ) {
    this.closed = closed;
    this.version = version;
    this.groupLimit = deps.storage.commitBatches === undefined ? 1 : MAX_GROUP_BATCHES;
    this.presence =
      deps.presence &&
      new PresenceTracker(deps.presence, (change) => {
        if (this.stopped || this.broken) return;
        this.queue.push({ kind: 'presence', change });
        this.schedule();
      });
  }

  get connectionCount(): number {
    return this.conns.size;
  }

  get isBroken(): boolean {
    return this.broken;
  }

  /** The version this node's connections were brought to. */
  get storedVersion(): number {
    return this.version;
  }

  /**
   * Another node changed the room (a hint, with its new version when known):
   * once the queue is free, read what changed from the storage and poke.
   */
  notice(version?: number): void {
    if ((version !== undefined && version <= this.version) || this.broken || this.stopped) return;
    const upTo = version ?? Number.POSITIVE_INFINITY;
    if (this.refreshFor !== undefined) {
      this.refreshFor = Math.max(this.refreshFor, upTo);
      return;
    }
    this.refreshFor = upTo;
    this.run(async () => {
      const hinted = this.refreshFor!;
      this.refreshFor = undefined;
      // A batch queued before it caught up under the room's lock (other nodes writing the same room): nothing more to read.
      if (hinted <= this.version) return;
      await this.refresh();
    }).catch((error: unknown) => {
      if (error instanceof StorageUnavailableError) this.deps.logger.warn('could not catch up with other nodes yet', { roomID: this.roomID, error });
      else if (!(error instanceof ClientError)) this.deps.logger.error('catching up with other nodes failed', { roomID: this.roomID, error });
    });
  }

  connections(): ClientConnection[] {
    return [...this.conns];
  }

  /** The room's figures (the engine's only while its state is loaded: stats never reload it) and where its queue is. */
  async stats(): Promise<(RoomStats & { queue: RoomQueueState }) | { queue: RoomQueueState }> {
    const queue = this.queueState();
    if (!this.open) return { queue };
    const engine = await this.deps.host.stats(this.roomID).catch(() => undefined);
    return engine === undefined ? { queue } : { ...engine, queue };
  }

  /** What the queue is doing, for the admin stats (a room that stopped making progress says where). */
  private queueState(): RoomQueueState {
    return {
      waiting: this.queue.length,
      running: this.running,
      activity: !this.running ? 'idle' : this.activity === STORING_GROUP ? `storing a group (${this.storingAfter} run after it)` : this.activity,
      version: this.version,
      epoch: this.epoch,
      open: this.open,
      broken: this.broken,
      sharedForMs: Math.max(0, this.sharedUntil - this.deps.clock.now()),
    };
  }

  /** Checks the connect request against the room, then sends `connected` and the catch-up poke. Throws ClientError. */
  connect(conn: ClientConnection): Promise<void> {
    return this.run(() => this.attach(conn));
  }

  detach(conn: ClientConnection): void {
    this.conns.delete(conn);
    this.presence?.disconnected(conn);
    this.checkIdle();
  }

  private checkIdle(): void {
    if (this.conns.size === 0 && !this.running && this.queue.length === 0 && !this.broken && !this.stopped && this.presence?.holding !== true) this.deps.onIdle(this);
  }

  /** A push frame for this room is being read: when the queue is free, the engine may get ready for the batch it starts. */
  expectPush(): void {
    if (!this.running && this.open && !this.closed && !this.broken && !this.stopped && this.lockless()) this.deps.host.prewake?.(this.roomID);
  }

  /** Queues a push; `frame` is the text it was decoded from, when there is one (a worker is sent that instead of the body). */
  push(conn: ClientConnection, push: PushBody, frame?: string): void {
    if (this.stopped) return;
    const body = frame !== undefined && this.deps.host.takesFrames === true ? frame : push;
    this.queue.push({ kind: 'push', conn, requestID: push.requestID, body });
    this.schedule();
  }

  /** Mutation recovery: what the server has processed for a (usually other) client group; answers the newest pull in `slot` (see ClientConnection.queuePull). */
  pull(conn: ClientConnection, slot: PullSlot): Promise<void> {
    return this.run(async () => {
      const pull = conn.takePull(slot);
      if (conn.isClosed) return;
      await this.refresh();
      const { user, ...answer } = await this.engineCall(() => this.deps.host.pull(this.roomID, pull.clientGroupID, pull.cookie));
      if (user !== undefined && user !== conn.userID) return conn.fail('Unauthorized', `Client group ${pull.clientGroupID} belongs to another user`);
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
    this.presence?.stop();
    await this.whenIdle();
  }

  whenIdle(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The room was deleted or went idle: refuse further connects and pushes, and free its state. */
  retire(): void {
    this.broken = true;
    this.presence?.stop();
    this.deps.host.close(this.roomID);
  }

  /** Sends every connection `["error", kind, message]` and closes it. */
  disconnectAll(kind: ClientError['kind'], message: string): number {
    const n = this.conns.size;
    for (const conn of this.conns) {
      conn.fail(kind, message);
      this.presence?.disconnected(conn);
    }
    this.conns.clear();
    this.checkIdle();
    return n;
  }

  private schedule(): void {
    if (this.running) return this.wake?.();
    this.running = true;
    // A microtask, so every frame already read from the sockets joins the batch. (A promise job: Node's
    // queueMicrotask wraps each callback in an async resource of its own.)
    void Promise.resolve().then(() => this.drain());
  }

  /**
   * Runs the queue. A batch that needs no lock is stored in the background
   * while the next ones already run in the engine; those are stored (and
   * poked) only after it — together, in one commit, when the storage can
   * (group commit) — and run again when they turn out to have run on a
   * state that was not stored.
   */
  private async drain(): Promise<void> {
    try {
      for (;;) {
        if (this.queue.length === 0 || (this.storing !== undefined && this.ran.length >= this.groupLimit)) {
          if (this.storing === undefined) break;
          // Until the group is stored, or something arrives that can run meanwhile.
          this.storingGroup(this.ran.length);
          const current = this.storing;
          const stored =
            this.queue.length > 0 ||
            (await new Promise<boolean>((resolve) => {
              this.wake = () => resolve(false);
              // (A failed store is met by storeNext's own wait.)
              current.then(() => resolve(true), () => resolve(true));
            }));
          this.wake = undefined;
          // (Its successor may be under way already: then look again.)
          if (stored && this.storing === current) await this.storeNext();
          continue;
        }
        const first = this.queue[0]!;
        if (first.kind === 'run') {
          await this.settleStores();
          this.queue.shift();
          this.activity = 'a queued task (connect, pull, catch-up, admin)';
          await first.run();
          continue;
        }
        const batch = this.servable(this.takeBatch());
        // Only pushes, in a closed room: nothing to run.
        if (batch.pushes.length === 0 && batch.presence.length === 0) continue;
        const ahead = this.lockless() ? await this.runAhead(batch) : undefined;
        if (ahead?.result !== undefined && this.stillValid(ahead.epoch)) {
          this.ran.push({ batch, result: ahead.result, epoch: ahead.epoch });
          // Nothing being stored, so nothing else ran ahead: it starts to be stored at once (storeNext() without its wait).
          if (this.storing === undefined) this.storing = this.store(this.ran.splice(0, this.groupLimit));
        } else {
          await this.settleStores();
          await this.processBatch(batch, { timedOut: ahead?.timedOut ?? [] });
        }
      }
    } finally {
      // (Both are so already, unless something unexpected threw: what a drain left is not the next one's.)
      this.storing = undefined;
      this.ran = [];
      this.running = false;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
      this.checkIdle();
    }
  }

  /**
   * Once a group is committed, before its pokes: the batches run after it
   * start to be stored. store() calls it only after a turn, never within
   * the call that starts the group it calls it for, so `storing` always
   * ends up being the newest group.
   */
  private storeSuccessor(): void {
    if (this.ran.length === 0 || !this.stillValid(this.ran[0]!.epoch)) return;
    this.storing = this.store(this.ran.splice(0, this.groupLimit));
  }

  /** Waits for the group being stored and goes on with the next. */
  private async storeNext(): Promise<void> {
    this.storingGroup(this.ran.length);
    const current = this.storing;
    const retry = await current;
    // Committed, and the batches run after it are being stored already.
    if (this.storing !== current) return;
    this.storing = undefined;
    const waiting = this.ran;
    this.ran = [];
    if (retry !== undefined) {
      // Not stored: the engine's state held it and the batches after it, and was reloaded; they all run again in turn.
      await this.processBatches(retry.batches, retry.failure);
      await this.processBatches(waiting.map((r) => r.batch));
    } else if (waiting.length > 0 && !this.stillValid(waiting[0]!.epoch)) {
      await this.processBatches(waiting.map((r) => r.batch));
    } else if (waiting.length > 0) {
      this.storing = this.store(waiting.slice(0, this.groupLimit));
      this.ran = waiting.slice(this.groupLimit);
    }
  }

  /** Everything run ahead is stored (or given up), nothing in the background. */
  private async settleStores(): Promise<void> {
    while (this.storing !== undefined) await this.storeNext();
  }

  /** Runs batches again in order, each locked if need be and stored alone; `failure` is the first one's first attempt's. */
  private async processBatches(batches: readonly Batch[], failure?: unknown): Promise<void> {
    for (const [i, batch] of batches.entries()) await this.processBatch(batch, i === 0 && failure !== undefined ? { timedOut: [], failure } : { timedOut: [] });
  }

  /** The tasks at the head of the queue up to the next `run`. */
  private takeBatch(): Batch {
    const pushes: QueuedPush[] = [];
    const pushers = new Set<ClientConnection>();
    const presence: PresenceChange[] = [];
    let n = 0;
    for (; n < this.queue.length; n++) {
      const task = this.queue[n]!;
      if (task.kind === 'run') break;
      if (task.kind === 'presence') presence.push(task.change);
      else {
        pushes.push(task);
        pushers.add(task.conn);
      }
    }
    this.queue.splice(0, n);
    return { pushes, pushers: [...pushers], presence };
  }

  /** Whether a batch run on the state of load `epoch` still holds: that state is the one loaded, and the room serves. */
  private stillValid(epoch: number): boolean {
    return epoch === this.epoch && this.open && !this.broken;
  }

  /** The queue waits for the group being stored, with `after` batches run after it (admin stats). */
  private storingGroup(after: number): void {
    this.activity = STORING_GROUP;
    this.storingAfter = after;
  }

  /** Whether a batch runs without the room's lock: its storage is not shared, or only this node wrote the room lately. */
  private lockless(): boolean {
    return !isSharedStorage(this.deps.storage) || this.deps.clock.now() >= this.sharedUntil;
  }

  /** Runs a batch in the engine only (the caller stores it); a failure leaves it to run again in turn. */
  private async runAhead(batch: Batch): Promise<RunAhead> {
    const epoch = this.epoch;
    if (!this.stillValid(epoch)) return { result: undefined, epoch, timedOut: [] };
    this.activity = 'running a batch ahead';
    try {
      return { result: await this.deps.host.batch(this.roomID, batchRequest(batch, [])), epoch, timedOut: [] };
    } catch (error) {
      this.open = false;
      return { result: undefined, epoch, timedOut: error instanceof EngineLostError && error.timedOut !== undefined ? [error.timedOut] : [] };
    }
  }

  /**
   * Stores batches run ahead (one commit) and pokes for each in turn;
   * answers them when they must run again (the storage refused them as
   * stale or could not be reached: the engine's state holds them, and
   * perhaps the next ones, so it is reloaded). Once committed,
   * storeSuccessor runs before the pokes (it sends the next group's
   * commit). Both only after an await, never within this call: the caller
   * (the group before's storeSuccessor) has then assigned `storing` and
   * poked its own group, so groups settle strictly in order and the one
   * being stored stays tracked.
   */
  private async store(group: readonly RanBatch[]): Promise<StoreRetry | undefined> {
    const commits: BatchCommit[] = [];
    for (const r of group) if (r.result.commit !== undefined) commits.push(r.result.commit);
    try {
      if (commits.length === 1) await this.deps.storage.commitBatch(this.roomID, commits[0]!);
      else if (commits.length > 1) await this.deps.storage.commitBatches!(this.roomID, commits);
      // Nothing to store (only refused or repeated pushes): still a turn first, see above.
      else await Promise.resolve();
    } catch (error) {
      this.open = false;
      if (error instanceof StaleRoomError || error instanceof StorageUnavailableError || error instanceof RoomClosedError) {
        return { batches: group.map((r) => r.batch), failure: error };
      }
      this.fail(new StorageError(`Storing a batch of room ${this.roomID} failed`, { cause: error }));
      return undefined;
    }
    if (commits.length > 0) this.deps.counters.commits++;
    try {
      this.storeSuccessor();
      for (const r of group) this.settled(r.batch, r.result);
    } catch (error) {
      // Not expected (answering a stored group): the state in memory can no longer be trusted; reload it from storage.
      this.fail(new StorageError(`Answering the stored batches of room ${this.roomID} failed`, { cause: error }));
    }
    return undefined;
  }

  /**
   * Loads the room's state into the host again (after it was lost or found
   * stale), and pokes the connections across whatever it moved on by.
   */
  private async reopen(given?: StoredRoom): Promise<void> {
    this.epoch++;
    this.deps.host.close(this.roomID);
    const stored = given ?? (await this.deps.storage.loadRoom(this.roomID));
    const shared = isSharedStorage(this.deps.storage);
    if (stored === undefined) throw shared ? new RoomDeletedError(this.roomID) : new ClientError('RoomNotFound', this.roomID);
    // Deleted and created again by another node meanwhile: these connections' cookies mean nothing there.
    if (shared && stored.meta.version < this.version) throw new RoomDeletedError(this.roomID);
    // Clients bound at connect but not stored yet stay bound to their users.
    const bindings = [...this.conns].map((c) => ({ clientID: c.clientID, clientGroupID: c.clientGroupID, userID: c.userID }));
    reportUnservable(this.deps.logger, this.roomID, await this.deps.host.open(this.roomID, stored, bindings));
    this.open = true;
    if (stored.meta.version === this.version) return;
    const groups = [...new Set([...this.conns].map((c) => c.clientGroupID))];
    this.pokeDelta(await this.deps.host.since(this.roomID, this.version, groups));
  }

  /** Reads what other nodes changed since this node's version and passes it on (shared storages only). */
  private async refresh(): Promise<void> {
    const storage = this.deps.storage;
    if (!isSharedStorage(storage) || this.broken) return;
    const changes = await storage.changesSince(this.roomID, this.version);
    try {
      if (changes === undefined) throw new RoomDeletedError(this.roomID);
      await this.catchUp(changes);
    } catch (error) {
      if (!(error instanceof RoomDeletedError)) throw error;
      this.vanish();
      throw new ClientError('RoomNotFound', this.roomID);
    }
  }

  /** Brings the state and the connections to what the storage holds: other nodes' batches, a close. */
  private async catchUp(changes: RoomChanges): Promise<void> {
    const step = this.noteChanges(changes);
    if (step === 'none') return;
    if (step === 'reload') return this.reopen(changes.full ? changes : undefined);
    try {
      this.pokeDelta(await this.deps.host.apply(this.roomID, changes));
    } catch (error) {
      if (!(error instanceof EngineLostError)) throw error;
      this.open = false;
      await this.reopen();
    }
  }

  /**
   * What the storage holds of the room, before its state catches up: a close
   * (the connections are ended) or a delete; answers how the state catches
   * up: not at all, by applying the changes, or by loading the room again.
   */
  private noteChanges(changes: RoomChanges): 'none' | 'apply' | 'reload' {
    // Deleted and created again by another node meanwhile: these connections' cookies mean nothing there.
    if (changes.meta.version < this.version) throw new RoomDeletedError(this.roomID);
    if (changes.meta.closed) this.closedElsewhere();
    else this.closed = false;
    if (changes.meta.version === this.version && !changes.full) return 'none';
    this.sharedUntil = this.deps.clock.now() + SHARED_ROOM_WINDOW_MS;
    return changes.full || !this.open ? 'reload' : 'apply';
  }

  /** The storage says another node closed the room: its connections end with RoomClosed (once). */
  private closedElsewhere(): void {
    if (this.closed) return;
    this.closed = true;
    this.disconnectAll('RoomClosed', `Room ${this.roomID} was closed`);
  }

  /**
   * Runs a batch under the room's lock, on the state caught up with what the
   * lock read. A catch-up by changes and the batch go to the engine at once
   * (a room's calls run in the order they are made, and both ride one
   * hand-off to its worker: one wake-up of each thread less while the lock
   * keeps every other node waiting); answers the catch-up's delta, which the
   * caller pokes before the batch's, and the batch as run (see servable).
   */
  private async runLocked(
    lock: RoomLock,
    batch: Batch,
    timedOut: readonly MutationPlace[],
  ): Promise<{ result: BatchResult; caughtUp: RoomDelta | undefined; ran: Batch }> {
    const changes = lock.changes;
    const step = this.noteChanges(changes);
    // Under the lock, the room's row is the truth: closed by another node, its pushes are not run.
    const ran = this.servable(batch);
    const request = batchRequest(ran, ran === batch ? timedOut : []);
    if (step === 'apply') {
      const applying = this.deps.host.apply(this.roomID, changes);
      const running = this.deps.host.batch(this.roomID, request);
      let caughtUp: RoomDelta;
      try {
        caughtUp = await applying;
      } catch (error) {
        // The batch ran on a state that did not catch up (or not at all): its outcome is not used.
        running.catch(() => {});
        if (!(error instanceof EngineLostError)) throw error;
        this.open = false;
        await this.reopen();
        return { result: await this.deps.host.batch(this.roomID, request), caughtUp: undefined, ran };
      }
      // A batch that fails here leaves the caught-up state unpoked: the retry reloads it and pokes from this.version.
      return { result: await running, caughtUp, ran };
    }
    if (step === 'reload') await this.reopen(changes.full ? changes : undefined);
    return { result: await this.deps.host.batch(this.roomID, request), caughtUp: undefined, ran };
  }

  /**
   * Takes every connection to the delta's version: a caught-up delta skips
   * those there already; a batch's poke (`requestIDOf` given) goes to all.
   */
  private pokeDelta(delta: RoomDelta, requestIDOf?: (conn: ClientConnection) => string): void {
    const frames = new PokeFrames(delta.version, delta.patchJSON, this.deps.clock.now(), delta.changesByGroup);
    for (const conn of this.conns) {
      if (requestIDOf === undefined && conn.cookie === delta.version) continue;
      conn.sendText(frames.frame(conn.cookie, conn.clientGroupID, requestIDOf?.(conn) ?? ''));
      conn.cookie = delta.version;
      this.deps.counters.pokes++;
    }
    this.version = delta.version;
  }

  /**
   * A shared storage's batch holds the room's lock, which reads what other
   * nodes committed since (runLocked catches up with it); undefined when the
   * batch commits without it (its storage is not shared, or only this node
   * wrote the room lately).
   */
  private async lockForBatch(): Promise<RoomLock | undefined> {
    const storage = this.deps.storage;
    if (!isSharedStorage(storage) || this.lockless()) return undefined;
    const lock = await storage.lockRoom(this.roomID, this.version);
    if (lock === undefined) throw new RoomDeletedError(this.roomID);
    return lock;
  }

  /** Another node deleted the room: its connections get RoomNotFound. */
  private vanish(): void {
    if (this.broken) return;
    this.retire();
    this.disconnectAll('RoomNotFound', this.roomID);
    this.deps.onBroken(this);
  }

  private waitForStorage(attempt: number): Promise<void> {
    const ms = storageRetryDelayMs(attempt);
    return new Promise((resolve) => this.deps.timers.setTimeout(resolve, ms));
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
    // With a shared storage the checks below run against the database's state, not an old cache.
    await this.refresh();
    if (this.closed) throw new ClientError('RoomClosed', `Room ${this.roomID} is closed`);
    const p = conn.params;
    const answer = await this.engineCall(() =>
      this.deps.host.connect(this.roomID, {
        clientID: p.clientID,
        clientGroupID: p.clientGroupID,
        userID: conn.userID,
        budgetKey: conn.newClientBudgetKey,
        baseCookie: p.baseCookie,
        lmid: p.lmid,
      }),
    );
    if (!answer.ok) throw new ClientError(answer.kind, answer.message);
    if (conn.isClosed) return;
    this.conns.add(conn);
    this.presence?.connected(conn);
    const now = this.deps.clock.now();
    conn.send(['connected', { wsid: p.wsid, timestamp: now }]);
    const c = answer.catchUp;
    if (c === undefined) return;
    conn.sendText(pokeText(c.baseCookie, c.cookie, c.lastMutationIDChanges, c.patchJSON, now, ''));
    conn.cookie = c.cookie;
    this.deps.counters.pokes++;
  }

  /**
   * Runs a batch (locked, on a shared storage a node other than this one
   * wrote lately) and stores it, with retries; `failure` is the first
   * attempt's, when it was made in the background already.
   */
  private async processBatch(batch: Batch, first: { readonly timedOut: readonly MutationPlace[]; readonly failure?: unknown }): Promise<void> {
    try {
      await this.runAndStore(batch, first);
    } catch (error) {
      // Not expected: the state in memory can no longer be trusted; reload it from storage.
      this.fail(new StorageError(`Processing a batch of room ${this.roomID} failed`, { cause: error }));
    }
  }

  private async runAndStore(batch: Batch, first: { readonly timedOut: readonly MutationPlace[]; readonly failure?: unknown }): Promise<void> {
    if (this.broken) return;
    const timedOut = [...first.timedOut];
    let failure = first.failure;
    let result: BatchResult | undefined;
    /** The batch as run: without its pushes once the room is closed. */
    let ran = batch;
    let unavailable = 0;
    for (let attempt = 1; result === undefined; attempt++) {
      try {
        if (failure !== undefined) {
          const e = failure;
          failure = undefined;
          throw e;
        }
        this.activity = `running and storing a batch alone (attempt ${attempt})`;
        if (!this.open) await this.reopen();
        const lock = await this.lockForBatch();
        try {
          let caughtUp: RoomDelta | undefined;
          if (lock === undefined) {
            ran = this.servable(batch);
            result = await this.deps.host.batch(this.roomID, batchRequest(ran, ran === batch ? timedOut : []));
          } else ({ result, caughtUp, ran } = await this.runLocked(lock, batch, timedOut));
          if (result.commit === undefined) {
            if (caughtUp !== undefined) this.pokeDelta(caughtUp);
            await lock?.release();
          } else if (lock !== undefined) {
            // The commit leaves first: the catch-up's poke is written while it is under way (the lock is released sooner).
            const committing = lock.commit(result.commit);
            try {
              if (caughtUp !== undefined) this.pokeDelta(caughtUp);
            } finally {
              await committing;
            }
          } else await this.deps.storage.commitBatch(this.roomID, result.commit);
        } catch (error) {
          await lock?.release().catch(() => {});
          throw error;
        }
      } catch (error) {
        if (error instanceof RoomDeletedError) return this.vanish();
        // A shared storage that cannot be reached: nothing is acknowledged; wait and run the batch again.
        if (error instanceof StorageUnavailableError && !this.stopped && !this.broken) {
          if (unavailable++ === 0) this.deps.logger.warn('storage unavailable; the batch waits and is retried', { roomID: this.roomID, error });
          result = undefined;
          this.open = false;
          attempt = 0;
          this.activity = `waiting for the storage (${unavailable} unavailable)`;
          await this.waitForStorage(unavailable);
          continue;
        }
        if (error instanceof StaleRoomError) this.sharedUntil = this.deps.clock.now() + SHARED_ROOM_WINDOW_MS;
        // Closed by another node whose notification has not arrived (the write without the lock found it): nothing was
        // written; the connections end, and the batch runs again without its pushes (servable), its presence changes kept.
        if (error instanceof RoomClosedError) this.closedElsewhere();
        const retry = (error instanceof EngineLostError || error instanceof StaleRoomError || error instanceof RoomClosedError) && attempt < MAX_ENGINE_ATTEMPTS;
        if (error instanceof EngineLostError && error.timedOut !== undefined) timedOut.push(error.timedOut);
        if (!retry) {
          this.fail(new StorageError(`Storing a batch of room ${this.roomID} failed`, { cause: error }));
          return;
        }
        result = undefined;
        this.open = false;
      }
    }
    if (unavailable > 0) this.deps.logger.info('storage reachable again; batch stored', { roomID: this.roomID, attempts: unavailable + 1 });
    if (result.commit !== undefined) this.deps.counters.commits++;
    this.settled(ran, result);
  }

  /**
   * The batch, or in a closed room its presence changes alone: its pushers'
   * connections were ended with RoomClosed (on any node), so nothing they
   * pushed is applied after the close; the leaves of their clients are.
   */
  private servable(batch: Batch): Batch {
    return this.closed && batch.pushes.length > 0 ? { pushes: [], pushers: [], presence: batch.presence } : batch;
  }

  /** A batch is stored: count it, poke every connection, and end the connections whose push was refused. */
  private settled(batch: Batch, result: BatchResult): void {
    this.report(result);
    if (result.commit !== undefined) this.poke(result, batch.pushes);
    for (const f of result.failures) batch.pushers[f.conn]?.fail(f.kind, f.message);
  }

  private report(result: BatchResult): void {
    const { counters } = this.deps;
    counters.mutations += result.mutations;
    counters.failedMutations += result.failedCount;
    for (const f of result.failed) this.deps.failures.mutationFailed(this.roomID, f);
    if (result.failedCount > result.failed.length) this.deps.failures.moreFailed(this.roomID, result.failedCount - result.failed.length);
  }

  private poke(result: BatchResult, pushes: readonly QueuedPush[]): void {
    const commit = result.commit!;
    this.deps.counters.batches++;
    const fallback = pushes[0]?.requestID ?? '';
    // A pusher gets the request id of its first push in the batch, every other connection the batch's first (so with one push, all do).
    const requestIDs = pushes.length > 1 ? firstRequestIDs(pushes) : undefined;
    this.pokeDelta({ version: commit.version, patchJSON: result.patchJSON, changesByGroup: result.changesByGroup }, (conn) => requestIDs?.get(conn) ?? fallback);
  }

  private fail(error: StorageError): void {
    if (this.broken) return;
    this.broken = true;
    this.presence?.stop();
    this.deps.host.close(this.roomID);
    this.deps.logger.error('room failed; closing its connections and dropping it from memory', { roomID: this.roomID, error, cause: error.cause });
    for (const conn of this.conns) conn.close(CLOSE_INTERNAL_ERROR, 'storage failure');
    this.conns.clear();
    this.deps.onBroken(this);
  }
}

function firstRequestIDs(pushes: readonly QueuedPush[]): Map<ClientConnection, string> {
  const requestIDs = new Map<ClientConnection, string>();
  for (const { conn, requestID } of pushes) if (!requestIDs.has(conn)) requestIDs.set(conn, requestID);
  return requestIDs;
}

function batchRequest(batch: Batch, timedOut: readonly MutationPlace[]): HostBatchRequest {
  const pushes: HostPush[] = [];
  for (const { conn, body } of batch.pushes) {
    const number = batch.pushers.indexOf(conn);
    pushes.push(
      typeof body === 'string'
        ? { conn: number, auth: conn.auth, budgetKey: conn.newClientBudgetKey, frame: body }
        : { conn: number, auth: conn.auth, budgetKey: conn.newClientBudgetKey, push: body },
    );
  }
  return batch.presence.length === 0 ? { pushes, timedOut } : { pushes, timedOut, presence: batch.presence };
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
