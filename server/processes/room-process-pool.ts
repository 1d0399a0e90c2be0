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
import { ROOM_PROCESS_ENV, STUCK_REPORT_FD, type FromRoomProcess, type ToRoomProcess } from './process-protocol';
import { StuckList, type StuckMutation } from './stuck-board';

export interface RoomProcessPoolOptions {
  readonly count: number;
  /** The CLI module the processes run, its arguments and node's (`--import tsx` from the sources). */
  readonly entry: string;
  readonly args: readonly string[];
  readonly execArgv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
}

/** How long a process may take to start before it is killed and started again. */
const START_TIMEOUT_MS = 60_000;
/** Waits before starting a process again after it stopped, growing while it keeps stopping soon after starting. */
const RESTART_DELAYS_MS = [0, 250, 1000, 5000];
/** A process that served this long before it stopped is started again at once. */
const STABLE_AFTER_MS = 30_000;
/** Connects waiting for a process that is starting; more are answered 503. */
const MAX_WAITING_UPGRADES = 1000;
/** How long a process may take to shut down before it is killed. */
const STOP_TIMEOUT_MS = 10_000;

/** FNV-1a over the UTF-16 code units: the same room always lands in the same slot. */
export function slotOf(roomID: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < roomID.length; i++) hash = Math.imul(hash ^ roomID.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % count;
}

interface Handed {
  readonly release: () => void;
}

interface WaitingUpgrade {
  readonly message: Extract<ToRoomProcess, { kind: 'upgrade' }>;
  readonly socket: Socket;
  readonly release: () => void;
}

class Slot {
  child: ChildProcess | undefined;
  ready = false;
  startedAt = 0;
  quickStops = 0;
  readonly stuck = new StuckList();
  readonly handed = new Map<number, Handed>();
  readonly admin = new Map<number, (reply: AdminReply) => void>();
  readonly waiting: WaitingUpgrade[] = [];
  startTimer: NodeJS.Timeout | undefined;
  constructor(readonly index: number) {}
}

export class RoomProcessPool {
  private readonly slots: Slot[];
  private nextID = 0;
  private stopping = false;
  private firstStart: { resolve: () => void; reject: (error: Error) => void; left: number } | undefined;

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
      this.firstStart = { resolve, reject, left: this.slots.length };
      for (const slot of this.slots) this.spawn(slot);
    });
  }

  /** Process ids, by slot (undefined while one is being started again). */
  pids(): (number | undefined)[] {
    return this.slots.map((s) => s.child?.pid);
  }

  /** Hands a socket whose connect request names `roomID` to that room's process; `release` runs once the socket is closed there (or never got there). */
  handOver(roomID: string, request: Omit<Extract<ToRoomProcess, { kind: 'upgrade' }>, 'kind' | 'id'>, socket: Socket, release: () => void): void {
    const slot = this.slots[slotOf(roomID, this.slots.length)]!;
    const message = { kind: 'upgrade' as const, id: ++this.nextID, ...request };
    if (this.stopping) return refuse(socket, release);
    if (!slot.ready) {
      if (slot.waiting.length >= MAX_WAITING_UPGRADES) return refuse(socket, release);
      slot.waiting.push({ message, socket, release });
      return;
    }
    this.send(slot, message, socket, release);
  }

  /** Answers an admin request in the process of slot `index`. */
  admin(index: number, method: string, path: string, body: string): Promise<AdminReply> {
    const slot = this.slots[index]!;
    if (!slot.ready || slot.child === undefined) return Promise.resolve({ status: 503, json: { error: `Room process ${index} is starting` } });
    const id = ++this.nextID;
    return new Promise((resolve) => {
      slot.admin.set(id, resolve);
      slot.child!.send({ kind: 'admin', id, method, path, body } satisfies ToRoomProcess);
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
        for (const w of slot.waiting.splice(0)) refuse(w.socket, w.release);
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

  private send(slot: Slot, message: Extract<ToRoomProcess, { kind: 'upgrade' }>, socket: Socket, release: () => void): void {
    // Closed while it waited for the process to start.
    if (socket.destroyed) return release();
    const child = slot.child;
    if (child === undefined || !child.connected) return refuse(socket, release);
    slot.handed.set(message.id, { release });
    child.send(message, socket, { keepOpen: false }, (error) => {
      if (error === null) return;
      slot.handed.delete(message.id);
      socket.destroy();
      release();
    });
  }

  private spawn(slot: Slot): void {
    const { options } = this;
    const child = fork(options.entry, [...options.args], {
      execArgv: [...options.execArgv],
      env: { ...options.env, [ROOM_PROCESS_ENV]: String(slot.index) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc', 'pipe'],
      serialization: 'json',
    });
    slot.child = child;
    slot.ready = false;
    slot.startedAt = Date.now();
    slot.startTimer = setTimeout(() => {
      options.logger.error('room process did not start in time; starting it again', { slot: slot.index, pid: child.pid, ms: START_TIMEOUT_MS });
      child.kill('SIGKILL');
    }, START_TIMEOUT_MS);
    const reports = child.stdio[STUCK_REPORT_FD];
    if (reports != null) {
      createInterface({ input: reports as NodeJS.ReadableStream }).on('line', (line) => {
        const stuck = parseStuck(line);
        if (stuck === undefined) return;
        slot.stuck.add(stuck);
        options.logger.error('a mutator was stuck in synchronous code past the timeout; its room process was stopped and starts again, skipping that mutation (the clients of its rooms reconnect)', {
          slot: slot.index,
          ...stuck,
        });
      });
    }
    child.on('message', (message: FromRoomProcess) => this.onMessage(slot, child, message));
    child.on('exit', (code, signal) => this.onExit(slot, child, code, signal));
    child.on('error', (error) => options.logger.error('room process error', { slot: slot.index, error }));
  }

  private onMessage(slot: Slot, child: ChildProcess, message: FromRoomProcess): void {
    if (slot.child !== child) return;
    switch (message.kind) {
      case 'hello':
        child.send({ kind: 'config', stuck: slot.stuck.toJSON() } satisfies ToRoomProcess);
        return;
      case 'ready': {
        clearTimeout(slot.startTimer);
        slot.ready = true;
        for (const w of slot.waiting.splice(0)) this.send(slot, w.message, w.socket, w.release);
        const first = this.firstStart;
        if (first !== undefined && --first.left === 0) {
          this.firstStart = undefined;
          first.resolve();
        }
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
    }
  }

  private onExit(slot: Slot, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.child !== child) return;
    clearTimeout(slot.startTimer);
    const wasReady = slot.ready;
    slot.child = undefined;
    slot.ready = false;
    // Its sockets closed with it.
    for (const h of slot.handed.values()) h.release();
    slot.handed.clear();
    for (const answer of slot.admin.values()) answer({ status: 503, json: { error: `Room process ${slot.index} stopped` } });
    slot.admin.clear();
    if (this.stopping) return;
    const first = this.firstStart;
    if (!wasReady && first !== undefined) {
      this.firstStart = undefined;
      for (const w of slot.waiting.splice(0)) refuse(w.socket, w.release);
      first.reject(new Error(`room process ${slot.index} stopped before it served (${signal ?? `exit code ${code}`}); its error is above`));
      return;
    }
    slot.quickStops = Date.now() - slot.startedAt >= STABLE_AFTER_MS ? 0 : slot.quickStops + 1;
    const delay = RESTART_DELAYS_MS[Math.min(slot.quickStops, RESTART_DELAYS_MS.length - 1)]!;
    this.options.logger.warn('room process stopped; starting it again', { slot: slot.index, pid: child.pid, code, signal, delayMs: delay });
    slot.startTimer = setTimeout(() => this.spawn(slot), delay);
  }
}

function refuse(socket: Socket, release: () => void): void {
  release();
  if (!socket.destroyed) socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
}

function parseStuck(line: string): StuckMutation | undefined {
  try {
    const m = JSON.parse(line) as Partial<StuckMutation>;
    if (typeof m.roomID === 'string' && typeof m.clientID === 'string' && typeof m.mutationID === 'number') return { roomID: m.roomID, clientID: m.clientID, mutationID: m.mutationID };
  } catch {
    // not a report
  }
  return undefined;
}
