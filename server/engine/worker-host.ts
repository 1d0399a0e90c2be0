import { Worker } from 'node:worker_threads';
import type { Timers } from '../clock';
import type { Logger } from '../logger';
import type { ServerCounters } from '../stats';
import type { RoomChanges, StoredRoom } from '../storage/types';
import {
  EngineLostError,
  type HostBatchRequest,
  type BatchResult,
  type ClientBinding,
  type ConnectAnswer,
  type ConnectRequest,
  type EngineHost,
  type MutationPlace,
  type OpenReport,
  type PullAnswer,
  type RoomDelta,
  type RoomStats,
} from './engine-types';
import { HotLoop, realLoopTurns } from './hot-loop';
import { SpareCoreWatch } from './spare-cpu';
import { Outbox } from './outbox';
import { BOARD_MUTATION, BOARD_PUSH, BOARD_ROOM, BOARD_RUNNING, BOARD_SEQ, BOARD_SLOTS } from './mutation-guard';
import { ANSWER_WINDOW_MS, AnswerWindows, LatencyEstimate, WakeGate, type Outstanding, type SpinWaitStats } from './spin-wait';
import { isBatchResultWire, unwireBatchResult, WAKE, wireBatchRequest, type BatchRequestWire, type BatchResultWire, type WorkerRequest, type WorkerResponse, type WorkerSetup } from './worker-protocol';

/** Looks per mutator timeout: a mutation seen running at this many looks in a row is stuck. */
export const WATCHDOG_LOOKS_PER_TIMEOUT = 4;


export interface WorkerHostOptions extends Omit<WorkerSetup, 'board' | 'turned'> {
  readonly workers: number;
  readonly mutatorTimeoutMs: number;
  readonly timers: Timers;
  readonly logger: Logger;
  readonly counters: ServerCounters;
  /** Whether the machine has a core to spare (threads then wait for each other's messages turning); default: SpareCoreWatch. */
  readonly hasSpareCore?: () => boolean;
  /** Whether threads may wait for each other's messages by turning at all (false: they always sleep). @default true */
  readonly spinWait?: boolean;
  /** Monotonic milliseconds (tests); default performance.now(). */
  readonly now?: () => number;
}


interface Pending {
  readonly roomID: string;
  readonly op: WorkerRequest['op'];
  /** Set when the main thread turns for this answer. */
  readonly turnedFor: Outstanding | undefined;
  readonly sentAt: number;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

class Slot {
  readonly board = new Int32Array(new SharedArrayBuffer(BOARD_SLOTS * Int32Array.BYTES_PER_ELEMENT));
  /** Milliseconds the worker has turned for wakes (it writes them). */
  readonly turned = new Float64Array(new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT));
  readonly wakes = new WakeGate();
  /** How long this worker's answers have been taking. */
  readonly latency = new LatencyEstimate();
  readonly rooms = new Set<string>();
  readonly pending = new Map<number, Pending>();
  readonly worker: Worker;
  readonly outbox: Outbox<WorkerRequest | BatchRequestWire>;
  readonly ready: Promise<void>;
  lastSeq = -1;
  strikes = 0;
  stopped = false;
  started = false;

  constructor(setup: Omit<WorkerSetup, 'board' | 'turned'>, onMessage: (slot: Slot, r: WorkerResponse) => void, onDeath: (slot: Slot, error: unknown) => void) {
    this.worker = new Worker(new URL('./worker-boot.mjs', import.meta.url), {
      workerData: { ...setup, board: this.board.buffer, turned: this.turned.buffer, entry: new URL(`./worker-main${extname(import.meta.url)}`, import.meta.url).href },
    });
    this.outbox = new Outbox((requests) => this.worker.postMessage(requests));
    this.ready = new Promise((resolve, reject) => {
      this.worker.on('message', (r: (WorkerResponse | BatchResultWire)[] | { ready: true }) => {
        if (Array.isArray(r)) {
          for (const response of r) onMessage(this, isBatchResultWire(response) ? { ok: true, ...unwireBatchResult(response) } : response);
          return;
        }
        this.started = true;
        resolve();
      });
      this.worker.once('error', reject);
    });
    this.ready.catch(() => {});
    this.worker.on('error', (error) => onDeath(this, error));
    this.worker.on('exit', (code) => onDeath(this, new Error(`worker exited with code ${code}`)));
  }
}

function extname(url: string): string {
  return url.endsWith('.ts') ? '.ts' : '.js';
}

/**
 * Runs rooms in worker threads, each room pinned to one worker (the one with
 * the fewest rooms when it opens). A watchdog looks at each busy worker's
 * board; a mutation still running after the mutator timeout (synchronous
 * `while (true) {}` included) gets its worker stopped: its pending requests
 * fail with EngineLostError naming the stuck mutation, the rooms reload from
 * storage in a fresh worker, and the batch runs again without it.
 */
export class WorkerEngineHost implements EngineHost {
  private readonly slots: Slot[] = [];
  private readonly roomSlots = new Map<string, Slot>();
  private readonly roomNumbers = new Map<number, string>();
  private nextRoomNumber = 0;
  private nextID = 0;
  private watchdog: unknown;
  private closing = false;
  /** Turns while answers are due, so they are taken without waking this thread. */
  private readonly answers: HotLoop;
  private readonly windows = new AnswerWindows();
  private readonly spareCoreWatch: SpareCoreWatch | undefined;
  /** A push is handed over as the text of its frame (one string to pass): the main thread keeps no parsed body. */
  readonly takesFrames = true;
  private readonly hasSpareCore: () => boolean;
  private readonly now: () => number;
  /** Turning time of workers that were replaced. */
  private retiredTurnedMs = 0;
  private wakesSent = 0;
  private wakesPaused = 0;

  constructor(private readonly options: WorkerHostOptions) {
    this.now = options.now ?? (() => performance.now());
    this.answers = new HotLoop({ now: this.now, next: realLoopTurns.next });
    if (options.spinWait === false) this.hasSpareCore = () => false;
    else if (options.hasSpareCore === undefined) {
      const watch = new SpareCoreWatch();
      this.spareCoreWatch = watch;
      this.hasSpareCore = () => watch.hasSpareCore;
    } else this.hasSpareCore = options.hasSpareCore;
    for (let i = 0; i < Math.max(1, options.workers); i++) this.slots.push(this.newSlot());
  }

  /** Resolves when every worker has loaded the mutators; rejects with the reason one could not. */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.ready));
  }

  get workerCount(): number {
    return this.slots.length;
  }

  /** The worker index a room runs on (for tests and stats), or undefined when it is not open. */
  workerOf(roomID: string): number | undefined {
    const slot = this.roomSlots.get(roomID);
    return slot === undefined ? undefined : this.slots.indexOf(slot);
  }

  async open(roomID: string, stored: StoredRoom, bindings: readonly ClientBinding[] = []): Promise<OpenReport> {
    this.close(roomID);
    const slot = this.slots.reduce((a, b) => (b.rooms.size < a.rooms.size ? b : a));
    const roomNumber = this.nextRoomNumber++;
    this.roomNumbers.set(roomNumber, roomID);
    this.roomSlots.set(roomID, slot);
    slot.rooms.add(roomID);
    return (await this.request(slot, roomID, { op: 'open', roomID, roomNumber, stored, bindings })) as OpenReport;
  }

  close(roomID: string): void {
    const slot = this.roomSlots.get(roomID);
    if (slot === undefined) return;
    this.forgetRoom(roomID);
    slot.rooms.delete(roomID);
    if (!slot.stopped) slot.outbox.send({ id: -1, op: 'close', roomID });
  }

  private forgetRoom(roomID: string): void {
    this.roomSlots.delete(roomID);
    for (const [n, id] of this.roomNumbers) if (id === roomID) this.roomNumbers.delete(n);
  }

  connect(roomID: string, request: ConnectRequest): Promise<ConnectAnswer> {
    return this.call(roomID, { op: 'connect', roomID, request });
  }

  batch(roomID: string, request: HostBatchRequest): Promise<BatchResult> {
    return this.call(roomID, { op: 'batch', roomID, request });
  }

  pull(roomID: string, clientGroupID: string, cookie: number | null): Promise<PullAnswer> {
    return this.call(roomID, { op: 'pull', roomID, clientGroupID, cookie });
  }

  apply(roomID: string, changes: RoomChanges): Promise<RoomDelta> {
    return this.call(roomID, { op: 'apply', roomID, changes });
  }

  since(roomID: string, cookie: number, clientGroupIDs: readonly string[]): Promise<RoomDelta> {
    return this.call(roomID, { op: 'since', roomID, cookie, clientGroupIDs });
  }

  stats(roomID: string): Promise<RoomStats> {
    return this.call(roomID, { op: 'stats', roomID });
  }

  /** Wakes the room's worker ahead of a push while the push is decoded and queued, when it has nothing to do and the machine a core to spare. */
  prewake(roomID: string): void {
    const slot = this.roomSlots.get(roomID);
    if (slot === undefined || slot.stopped || !slot.started || slot.pending.size > 0 || !this.hasSpareCore()) return;
    const now = this.now();
    if (slot.wakes.paused(now)) {
      this.wakesPaused++;
      return;
    }
    if (!slot.wakes.wake(now)) return;
    this.wakesSent++;
    slot.worker.postMessage(WAKE);
  }

  /** Whether the main thread is turning for answers now. */
  get turning(): boolean {
    return this.answers.hot;
  }

  /** Time spent turning (main thread and workers) and wakes sent. */
  spinStats(): SpinWaitStats {
    return {
      enabled: this.options.spinWait !== false,
      mainThreadMs: this.answers.turnedMs,
      workersMs: this.retiredTurnedMs + this.slots.reduce((sum, s) => sum + s.turned[0]!, 0),
      wakesSent: this.wakesSent,
      wakesPaused: this.wakesPaused,
    };
  }

  /** Stops every worker: what they were asked and had not answered fails with EngineLostError, and the main thread stops turning. */
  async shutdown(): Promise<void> {
    this.closing = true;
    this.spareCoreWatch?.stop();
    this.options.timers.clearTimeout(this.watchdog);
    const terminated = this.slots.map((s) => s.worker.terminate());
    for (const slot of this.slots) this.stop(slot, 'the server is shutting down', undefined);
    this.answers.stop();
    await Promise.all(terminated);
  }

  private call<T>(roomID: string, request: DistributiveOmit<WorkerRequest, 'id'>): Promise<T> {
    const slot = this.roomSlots.get(roomID);
    if (slot === undefined) return Promise.reject(new EngineLostError(roomID, 'it is not open'));
    return this.request(slot, roomID, request) as Promise<T>;
  }

  private request(slot: Slot, roomID: string, request: DistributiveOmit<WorkerRequest, 'id'>): Promise<unknown> {
    if (slot.stopped) return Promise.reject(new EngineLostError(roomID, 'its worker was stopped'));
    const id = this.nextID++;
    return new Promise((resolve, reject) => {
      const sentAt = this.now();
      // Turns only for an answer likely within the window (a worker whose answers take longer is waited for asleep).
      const turnedFor = slot.latency.answersWithinWindow && this.hasSpareCore() ? { sentAt, estimate: slot.latency, answered: false } : undefined;
      slot.pending.set(id, { roomID, op: request.op, turnedFor, sentAt, resolve, reject });
      slot.outbox.send(request.op === 'batch' ? wireBatchRequest(id, request.roomID, request.request) : ({ ...request, id } as WorkerRequest));
      slot.wakes.requested(sentAt);
      if (turnedFor !== undefined) {
        this.windows.sent(turnedFor);
        this.answers.keep(ANSWER_WINDOW_MS);
      }
      this.armWatchdog();
    });
  }

  private onMessage = (slot: Slot, r: WorkerResponse): void => {
    const pending = slot.pending.get(r.id);
    if (pending === undefined) return;
    slot.pending.delete(r.id);
    const now = this.now();
    slot.latency.add(now - pending.sentAt);
    if (pending.turnedFor !== undefined) pending.turnedFor.answered = true;
    if (this.answers.hot) this.keepTurningFor(now);
    if (r.ok) pending.resolve(r.value);
    else if (r.error.lost) pending.reject(new EngineLostError(pending.roomID, r.error.message));
    else pending.reject(Object.assign(new Error(r.error.message), { name: r.error.name }));
  };

  /** Turns on only for outstanding requests likely to be answered within their window. */
  private keepTurningFor(now: number): void {
    const until = this.windows.deadline(now);
    if (until === undefined) this.answers.stop();
    else this.answers.keepUntil(until);
  }

  private onDeath = (slot: Slot, error: unknown): void => {
    if (slot.stopped || this.closing) return;
    this.options.logger.error('room worker failed; its rooms reload from storage', { error });
    // A worker that never started (its mutators module fails to load) is not restarted in a loop: ready() rejects.
    if (slot.started) this.replace(slot, 'its worker failed', undefined);
    else this.stop(slot, 'its worker could not start', undefined);
  };

  private armWatchdog(): void {
    if (this.watchdog !== undefined || this.closing) return;
    this.watchdog = this.options.timers.setTimeout(() => this.look(), this.options.mutatorTimeoutMs / WATCHDOG_LOOKS_PER_TIMEOUT);
  }

  private look(): void {
    this.watchdog = undefined;
    for (const slot of [...this.slots]) {
      if (slot.pending.size === 0 || slot.stopped) {
        slot.strikes = 0;
        continue;
      }
      const seq = Atomics.load(slot.board, BOARD_SEQ);
      const running = Atomics.load(slot.board, BOARD_RUNNING) === 1;
      slot.strikes = running && seq === slot.lastSeq ? slot.strikes + 1 : 0;
      slot.lastSeq = seq;
      if (slot.strikes < WATCHDOG_LOOKS_PER_TIMEOUT) continue;
      const roomID = this.roomNumbers.get(Atomics.load(slot.board, BOARD_ROOM));
      const place: MutationPlace = { push: Atomics.load(slot.board, BOARD_PUSH), mutation: Atomics.load(slot.board, BOARD_MUTATION) };
      this.options.counters.workersStopped++;
      this.options.logger.warn('a mutator ran past the timeout; stopping its worker (its rooms reload from storage)', {
        roomID,
        mutatorTimeoutMs: this.options.mutatorTimeoutMs,
      });
      this.replace(slot, 'a mutator ran past the timeout', roomID === undefined ? undefined : { roomID, place });
    }
    if (this.slots.some((s) => s.pending.size > 0)) this.armWatchdog();
  }

  /** Stops a worker, fails its pending requests, and puts a fresh worker in its place. */
  private replace(slot: Slot, reason: string, stuck: { roomID: string; place: MutationPlace } | undefined): void {
    this.stop(slot, reason, stuck);
    const index = this.slots.indexOf(slot);
    if (index !== -1 && !this.closing) this.slots[index] = this.newSlot();
  }

  private stop(slot: Slot, reason: string, stuck: { roomID: string; place: MutationPlace } | undefined): void {
    if (slot.stopped) return;
    slot.stopped = true;
    this.retiredTurnedMs += slot.turned[0]!;
    void slot.worker.terminate();
    for (const roomID of slot.rooms) this.forgetRoom(roomID);
    for (const p of slot.pending.values()) {
      const timedOut = stuck !== undefined && p.op === 'batch' && p.roomID === stuck.roomID ? stuck.place : undefined;
      if (p.turnedFor !== undefined) p.turnedFor.answered = true;
      p.reject(new EngineLostError(p.roomID, reason, timedOut));
    }
    slot.pending.clear();
  }

  private newSlot(): Slot {
    const { workers: _w, mutatorTimeoutMs: _t, timers: _timers, logger: _l, counters: _c, hasSpareCore: _s, spinWait: _w2, now: _n, ...setup } = this.options;
    return new Slot(setup, this.onMessage, this.onDeath);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
