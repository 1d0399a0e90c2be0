/**
 * The acceptor side of `--room-processes N`: N room processes, each a fork of
 * the CLI serving the rooms whose id hashes to it. The acceptor reads each
 * connect request and hands its socket to the room's process; from then on
 * the process owns the socket. A process stopped by its watchdog (a mutator
 * stuck in synchronous code) is started again, told to skip that mutation;
 * the clients of its rooms reconnect.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import type { AdminReply } from '../admin-api';
import type { Logger } from '../logger';
import type { RoomWindows } from '../room-quota';
import { refuseUpgrade } from '../upgrade-refusal';
import { ROOM_PROCESS_ENV, STUCK_REPORT_FD, type FromRoomProcess, type ToRoomProcess } from './process-protocol';
import { stopReading } from './stop-reading';
import { blamed, StuckList, type InFlightMutation } from './stuck-board';

export interface RoomProcessPoolOptions {
  readonly count: number;
  /** The CLI module the processes run, its arguments and node's (`--import tsx` from the sources). */
  readonly entry: string;
  readonly args: readonly string[];
  readonly execArgv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** The windows of rooms created per user and per address, shared by every process. */
  readonly roomWindows: RoomWindows;
}

/** How long a process may take to start before it is killed and started again. */
const START_TIMEOUT_MS = 60_000;
/** Waits before starting a process again after it stopped, growing while it keeps stopping soon after starting. */
const RESTART_DELAYS_MS = [0, 250, 1000, 5000];
/** A process that served this long before it stopped is started again at once. */
const STABLE_AFTER_MS = 30_000;
/** Connects waiting for a process that is starting; more are answered 503. */
const MAX_WAITING_UPGRADES = 1000;
/** How long a connect waits for its process to start; then it is answered 503 (the client retries). */
const MAX_UPGRADE_WAIT_MS = 10_000;
/** How long a process may take to shut down before it is killed. */
const STOP_TIMEOUT_MS = 10_000;
/** How long an admin request waits for a process's answer (one stuck in a mutator answers nothing). */
const ADMIN_TIMEOUT_MS = 5_000;

/** FNV-1a over the UTF-16 code units: the same room always lands in the same slot. */
export function slotOf(roomID: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < roomID.length; i++) hash = Math.imul(hash ^ roomID.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % count;
}

/** A connect whose socket is to go to a room process. */
interface Upgrade {
  readonly message: Extract<ToRoomProcess, { kind: 'upgrade' }>;
  readonly socket: Socket;
  /** Gives the socket's place back to its address; once, when it closed (here or in the process). */
  readonly release: () => void;
}

/**
 * An upgrade sent to a process. The socket is sent with keepOpen and this
 * copy closed only once the process said it has its own (`received`): one
 * that stops before drops what it had not taken, and the socket, still
 * whole here, goes to the next one.
 */
interface Handed extends Upgrade {
  received: boolean;
}

interface Waiting extends Upgrade {
  readonly timer: NodeJS.Timeout;
  readonly onClose: () => void;
}

/** What the admin `/stats` show of a slot beside what its process answers. */
export interface SlotStats {
  readonly pid: number | null;
  /** Times its process stopped without being asked (a stuck mutator, a crash, a kill). */
  readonly stops: number;
  /** Of those, stopped by its watchdog for a stuck mutator. */
  readonly stuckStops: number;
}

class Slot {
  child: ChildProcess | undefined;
  /** Its process takes upgrades now. */
  ready = false;
  /** Its process got ready since it was started (it may have gone away since). */
  served = false;
  startedAt = 0;
  quickStops = 0;
  stops = 0;
  stuckStops = 0;
  readonly stuck = new StuckList();
  readonly handed = new Map<number, Handed>();
  readonly admin = new Map<number, (reply: AdminReply) => void>();
  /** Room creations its process counted in the windows, by its id for them, until it gives them back or stops. */
  readonly taken = new Map<number, () => void>();
  readonly waiting = new Set<Waiting>();
  startTimer: NodeJS.Timeout | undefined;
  constructor(readonly index: number) {}
}

export class RoomProcessPool {
  private readonly slots: Slot[];
  private nextID = 0;
  private stopping = false;
  private firstStart: { resolve: () => void; reject: (error: Error) => void; waitingFor: Set<Slot> } | undefined;

  constructor(private readonly options: RoomProcessPoolOptions) {
    if (!Number.isInteger(options.count) || options.count < 1) throw new RangeError(`room processes must be a positive integer, not ${options.count}`);
    this.slots = Array.from({ length: options.count }, (_, i) => new Slot(i));
  }

  get count(): number {
    return this.slots.length;
  }

  /** Starts every process; resolves when all serve, rejects when one stops before (its mutators do not load, its storage does not open…). */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.firstStart = { resolve, reject, waitingFor: new Set(this.slots) };
      for (const slot of this.slots) this.spawn(slot);
    });
  }

  /** Process id and stops, by slot. */
  stats(): SlotStats[] {
    return this.slots.map((s) => ({ pid: s.child?.pid ?? null, stops: s.stops, stuckStops: s.stuckStops }));
  }

  /** Hands a socket whose connect request names `roomID` to that room's process; `release` runs once the socket is closed there (or never got there). */
  handOver(roomID: string, request: Omit<Extract<ToRoomProcess, { kind: 'upgrade' }>, 'kind' | 'id'>, socket: Socket, release: () => void): void {
    const upgrade = { message: { kind: 'upgrade' as const, id: ++this.nextID, ...request }, socket, release };
    if (this.stopping) return refuse(socket, release);
    this.send(this.slots[slotOf(roomID, this.slots.length)]!, upgrade);
  }

  /** Whether each slot's process serves now. */
  serving(): boolean[] {
    return this.slots.map((s) => s.ready);
  }

  /** Answers an admin request in the process of slot `index` (503 while it starts or when it does not answer in time). */
  admin(index: number, method: string, path: string, body: string): Promise<AdminReply> {
    const slot = this.slots[index]!;
    const child = slot.child;
    if (!slot.ready || child === undefined) return Promise.resolve(notServing(index));
    const id = ++this.nextID;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        slot.admin.delete(id);
        resolve({ status: 503, json: { error: `Room process ${index} did not answer within ${ADMIN_TIMEOUT_MS} ms` } });
      }, ADMIN_TIMEOUT_MS);
      slot.admin.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      tell(child, { kind: 'admin', id, method, path, body });
    });
  }

  /** Slot of the process serving `roomID`. */
  slotOf(roomID: string): number {
    return slotOf(roomID, this.slots.length);
  }

  /** Asks every process to shut down (finishing and storing what is queued) and waits for them; kills those that take too long. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        clearTimeout(slot.startTimer);
        this.refuseWaiting(slot);
        const child = slot.child;
        if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        if (child.connected) child.send({ kind: 'shutdown' } satisfies ToRoomProcess);
        else child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  /** Hands an upgrade to its process, or keeps it until the process serves (it is starting, or stopped just now). */
  private send(slot: Slot, upgrade: Upgrade): void {
    const { socket, release } = upgrade;
    // Closed while it waited for a process.
    if (socket.destroyed) return release();
    const child = slot.child;
    if (child === undefined || !child.connected || !slot.ready) return this.wait(slot, upgrade);
    const detached = withUnread(upgrade, stopReading(socket));
    const { message } = detached;
    slot.handed.set(message.id, { ...detached, received: false });
    child.send(message, socket, { keepOpen: true }, (error) => {
      if (error === null || !slot.handed.delete(message.id)) return;
      // The process went away meanwhile: the socket waits for the next one.
      this.send(slot, detached);
    });
  }

  private wait(slot: Slot, upgrade: Upgrade): void {
    if (this.stopping || slot.waiting.size >= MAX_WAITING_UPGRADES) return refuse(upgrade.socket, upgrade.release);
    const waiting: Waiting = {
      ...upgrade,
      timer: setTimeout(() => {
        slot.waiting.delete(waiting);
        stopWatching(waiting);
        refuse(upgrade.socket, upgrade.release);
      }, MAX_UPGRADE_WAIT_MS),
      // A client that gives up frees its place at once. An upgraded socket is half-open: its client's FIN is only an 'end'.
      onClose: () => {
        clearTimeout(waiting.timer);
        slot.waiting.delete(waiting);
        stopWatching(waiting);
        upgrade.release();
        upgrade.socket.destroy();
      },
    };
    upgrade.socket.once('close', waiting.onClose);
    upgrade.socket.once('end', waiting.onClose);
    slot.waiting.add(waiting);
  }

  /** The upgrades waiting for the slot's process, taken off the waiting list. */
  private takeWaiting(slot: Slot): Upgrade[] {
    const taken = [...slot.waiting];
    slot.waiting.clear();
    for (const w of taken) {
      clearTimeout(w.timer);
      stopWatching(w);
    }
    return taken;
  }

  private refuseWaiting(slot: Slot): void {
    for (const w of this.takeWaiting(slot)) refuse(w.socket, w.release);
  }

  private spawn(slot: Slot): void {
    const { options } = this;
    const child = fork(options.entry, [...options.args], {
      // Not the inspector's flags: each would take the same port (attach a debugger to a room process by its pid: kill -USR1).
      execArgv: options.execArgv.filter((a) => !/^--inspect(-brk|-port|-wait)?(=|$)/.test(a)),
      env: { ...options.env, [ROOM_PROCESS_ENV]: String(slot.index) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc', 'pipe'],
      serialization: 'json',
    });
    slot.child = child;
    slot.ready = false;
    slot.served = false;
    slot.startedAt = Date.now();
    slot.startTimer = setTimeout(() => {
      options.logger.error('room process did not start in time; starting it again', { slot: slot.index, pid: child.pid, ms: START_TIMEOUT_MS });
      child.kill('SIGKILL');
    }, START_TIMEOUT_MS);
    const reports = child.stdio[STUCK_REPORT_FD];
    if (reports != null) createInterface({ input: reports as NodeJS.ReadableStream }).on('line', (line) => this.onStuck(slot, child, line));
    child.on('message', (message: FromRoomProcess) => this.onMessage(slot, child, message));
    // Its channel closes as it dies, before its exit is seen: connects wait for the next process from then on.
    child.on('disconnect', () => {
      if (slot.child === child) slot.ready = false;
    });
    child.on('exit', (code, signal) => this.onExit(slot, child, code, signal));
    child.on('error', (error) => options.logger.error('room process error', { slot: slot.index, error }));
  }

  private onStuck(slot: Slot, child: ChildProcess, line: string): void {
    const inFlight = parseReport(line);
    if (inFlight === undefined) return;
    slot.stuckStops++;
    const stuck = blamed(inFlight);
    const about = { slot: slot.index, pid: child.pid, underWay: inFlight };
    if (stuck === undefined) {
      this.options.logger.error('a mutator held its room process past the timeout (one already failed by its timer was still running); the process was stopped and starts again (the clients of its rooms reconnect)', about);
      return;
    }
    slot.stuck.add(stuck);
    this.options.logger.error(
      'a mutator was stuck in synchronous code past the timeout; its room process was stopped and starts again, skipping that mutation (the clients of its rooms reconnect)',
      { ...about, ...stuck },
    );
  }

  private onMessage(slot: Slot, child: ChildProcess, message: FromRoomProcess): void {
    if (slot.child !== child) return;
    switch (message.kind) {
      case 'hello':
        tell(child, { kind: 'config', stuck: slot.stuck.toJSON() });
        return;
      case 'ready': {
        clearTimeout(slot.startTimer);
        slot.ready = true;
        slot.served = true;
        for (const w of this.takeWaiting(slot)) this.send(slot, w);
        const first = this.firstStart;
        if (first !== undefined && first.waitingFor.delete(slot) && first.waitingFor.size === 0) {
          this.firstStart = undefined;
          first.resolve();
        }
        return;
      }
      case 'received': {
        const handed = slot.handed.get(message.id);
        if (handed === undefined) return;
        handed.received = true;
        // Only this copy of the socket closes: the process's keeps the connection.
        handed.socket.destroy();
        return;
      }
      case 'closed':
        slot.handed.get(message.id)?.release();
        slot.handed.delete(message.id);
        return;
      case 'admin-reply':
        slot.admin.get(message.id)?.({ status: message.status, json: message.json });
        slot.admin.delete(message.id);
        return;
      case 'take':
        void Promise.resolve(this.options.roomWindows.take(message.userID, message.address)).then((taken) => {
          if (typeof taken === 'string') return void tell(child, { kind: 'taken', id: message.id, refused: taken });
          if (slot.child !== child) return taken();
          slot.taken.set(message.id, taken);
          tell(child, { kind: 'taken', id: message.id });
        });
        return;
      case 'give-back':
        slot.taken.get(message.id)?.();
        slot.taken.delete(message.id);
        return;
    }
  }

  private onExit(slot: Slot, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.child !== child) return;
    clearTimeout(slot.startTimer);
    const served = slot.served;
    slot.child = undefined;
    slot.ready = false;
    const handed = [...slot.handed.values()];
    slot.handed.clear();
    for (const answer of slot.admin.values()) answer({ status: 503, json: { error: `Room process ${slot.index} stopped` } });
    slot.admin.clear();
    // Whether those rooms were created is not known: they stay counted (until their window ends).
    slot.taken.clear();
    // Sockets it had received closed with it; the others are still whole here: they go to the next one.
    for (const h of handed) {
      if (h.received || h.socket.destroyed || this.stopping) {
        h.release();
        h.socket.destroy();
      } else this.wait(slot, h);
    }
    if (this.stopping) return;
    const first = this.firstStart;
    if (!served && first !== undefined) {
      this.firstStart = undefined;
      for (const s of this.slots) this.refuseWaiting(s);
      first.reject(new Error(`room process ${slot.index} stopped before it served (${signal ?? `exit code ${code}`}); its error is above`));
      return;
    }
    slot.stops++;
    slot.quickStops = Date.now() - slot.startedAt >= STABLE_AFTER_MS ? 0 : slot.quickStops + 1;
    const delay = RESTART_DELAYS_MS[Math.min(slot.quickStops, RESTART_DELAYS_MS.length - 1)]!;
    this.options.logger.warn('room process stopped; starting it again', { slot: slot.index, pid: child.pid, code, signal, delayMs: delay });
    slot.startTimer = setTimeout(() => this.spawn(slot), delay);
  }
}

/** Sends a message to a process whose channel is open (one going away gets none). */
function tell(child: ChildProcess, message: ToRoomProcess): void {
  if (child.connected) child.send(message);
}

function notServing(index: number): AdminReply {
  return { status: 503, json: { error: `Room process ${index} is starting` } };
}

/** Answers 503 and closes the socket once that is written (one this process stopped reading would never see its client's close). */
function refuse(socket: Socket, release: () => void): void {
  release();
  if (!socket.destroyed) refuseUpgrade(socket, 503, () => socket.destroy());
}

function stopWatching(waiting: Waiting): void {
  waiting.socket.off('close', waiting.onClose);
  waiting.socket.off('end', waiting.onClose);
}

function parseReport(line: string): InFlightMutation[] | undefined {
  try {
    const { inFlight } = JSON.parse(line) as { inFlight?: unknown };
    if (!Array.isArray(inFlight)) return undefined;
    return inFlight.filter(
      (m: Partial<InFlightMutation>): m is InFlightMutation =>
        typeof m.roomID === 'string' && typeof m.clientID === 'string' && typeof m.mutationID === 'number' && typeof m.timedOut === 'boolean',
    );
  } catch {
    return undefined;
  }
}

/** The upgrade with the bytes this process read after the request appended to its head (the room process reads them first). */
function withUnread(upgrade: Upgrade, unread: Buffer): Upgrade {
  if (unread.length === 0) return upgrade;
  const head = Buffer.concat([Buffer.from(upgrade.message.head, 'base64'), unread]).toString('base64');
  return { ...upgrade, message: { ...upgrade.message, head } };
}
