import type { Mutation } from '../../src/protocol';
import { MAX_ID_BYTES } from '../stored-text';

/** A mutation by who sent it: what a room process that had to be stopped for it skips after its restart. */
export interface StuckMutation {
  readonly roomID: string;
  readonly clientID: string;
  readonly mutationID: number;
}

/** A mutation under way when its process was seen stuck: in the order they started, and whether its timer already failed it. */
export interface InFlightMutation extends StuckMutation {
  readonly timedOut: boolean;
}

/** Mutations one process may have under way with their names on the board (more are counted, unnamed). */
export const BOARD_SLOTS = 32;

const SEQ = 0;
const RUNNING = 1;
const STARTS = 2;
const BEAT = 3;
const HEADER_INTS = 4;
// Per slot: in use, start order, timed out, room bytes, client bytes; then the mutation id (f64) and the ids' text.
const IN_USE = 0;
const ORDER = 1;
const TIMED_OUT = 2;
const ROOM_BYTES = 3;
const CLIENT_BYTES = 4;
const SLOT_INTS = 6;
const SLOT_BYTES = SLOT_INTS * 4 + 8 + 2 * MAX_ID_BYTES;
const SLOTS_OFFSET = HEADER_INTS * 4;

/**
 * Where a room process marks the mutations its main thread has under way,
 * for a watchdog thread of the same process to read: a sequence that moves
 * whenever one starts or settles, how many are under way (an async mutator
 * may wait while another room's runs, and one failed by its timer may still
 * run), each one's room, client and id in a slot of its own, and a heartbeat
 * of the main thread's event loop.
 */
export class StuckBoard {
  readonly buffer: SharedArrayBuffer;
  private readonly header: Int32Array;
  private readonly free: number[] = [];
  private readonly encoder = new TextEncoder();
  /** Each slot's views, made once, and the ids its text holds (a slot mostly goes to the same room and client again: not encoded again). */
  private readonly slots: { readonly ints: Int32Array; readonly mutationID: Float64Array; readonly room: Uint8Array; readonly client: Uint8Array; roomID?: string; clientID?: string }[] = [];

  constructor(buffer = new SharedArrayBuffer(SLOTS_OFFSET + BOARD_SLOTS * SLOT_BYTES)) {
    this.buffer = buffer;
    this.header = new Int32Array(buffer, 0, HEADER_INTS);
    for (let i = 0; i < BOARD_SLOTS; i++) {
      const at = SLOTS_OFFSET + i * SLOT_BYTES;
      const text = at + SLOT_INTS * 4 + 8;
      this.slots.push({
        ints: new Int32Array(buffer, at, SLOT_INTS),
        mutationID: new Float64Array(buffer, at + SLOT_INTS * 4, 1),
        room: new Uint8Array(buffer, text, MAX_ID_BYTES),
        client: new Uint8Array(buffer, text + MAX_ID_BYTES, MAX_ID_BYTES),
      });
    }
    for (let i = BOARD_SLOTS - 1; i >= 0; i--) this.free.push(i);
  }

  /** Marks a mutation started; the slot it took (-1: none free, it is counted unnamed) goes to `settled` and `timedOut`. */
  started(roomID: string, mutation: Mutation): number {
    const slot = this.free.pop() ?? -1;
    if (slot !== -1) {
      const s = this.slots[slot]!;
      const { ints, mutationID } = s;
      if (s.roomID !== roomID) {
        Atomics.store(ints, ROOM_BYTES, this.encoder.encodeInto(roomID, s.room).written);
        s.roomID = roomID;
      }
      if (s.clientID !== mutation.clientID) {
        Atomics.store(ints, CLIENT_BYTES, this.encoder.encodeInto(mutation.clientID, s.client).written);
        s.clientID = mutation.clientID;
      }
      mutationID[0] = mutation.id;
      Atomics.store(ints, TIMED_OUT, 0);
      Atomics.store(ints, ORDER, Atomics.add(this.header, STARTS, 1));
      Atomics.store(ints, IN_USE, 1);
    }
    Atomics.add(this.header, RUNNING, 1);
    Atomics.add(this.header, SEQ, 1);
    return slot;
  }

  /** Its timer failed it; it may still be running. */
  timedOut(slot: number): void {
    if (slot !== -1) Atomics.store(this.slots[slot]!.ints, TIMED_OUT, 1);
  }

  /** The mutator's promise settled. */
  settled(slot: number): void {
    if (slot !== -1) {
      Atomics.store(this.slots[slot]!.ints, IN_USE, 0);
      this.free.push(slot);
    }
    Atomics.sub(this.header, RUNNING, 1);
    Atomics.add(this.header, SEQ, 1);
  }

  /** Moves whenever a mutation starts or settles. */
  get seq(): number {
    return Atomics.load(this.header, SEQ);
  }

  /** The main thread's heartbeat: moves while its event loop turns (a thread stuck in a mutator stops it). */
  beat(): void {
    Atomics.add(this.header, BEAT, 1);
  }

  get beats(): number {
    return Atomics.load(this.header, BEAT);
  }

  get running(): number {
    return Atomics.load(this.header, RUNNING);
  }

  /** The mutations under way with a slot, oldest first. */
  inFlight(): InFlightMutation[] {
    const found: (InFlightMutation & { order: number })[] = [];
    for (const { ints, mutationID, room, client } of this.slots) {
      if (Atomics.load(ints, IN_USE) !== 1) continue;
      const decode = (text: Uint8Array, bytes: number) => Buffer.from(text.buffer, text.byteOffset, bytes).toString('utf8');
      found.push({
        order: Atomics.load(ints, ORDER),
        roomID: decode(room, Atomics.load(ints, ROOM_BYTES)),
        clientID: decode(client, Atomics.load(ints, CLIENT_BYTES)),
        mutationID: mutationID[0]!,
        timedOut: Atomics.load(ints, TIMED_OUT) === 1,
      });
    }
    return found.sort((a, b) => a.order - b.order).map(({ order: _order, ...m }) => m);
  }
}

/**
 * How long the board may stay still (no mutation starting or settling, no
 * heartbeat of the main thread), with a mutation under way, before the
 * process counts as stuck, in mutator timeouts: past one, so that a mutator
 * that only awaits too long is failed by its timer first.
 */
export const STILL_TIMEOUTS = 1.25;

/** How often the main thread beats and the watchdog looks: a quarter of the mutator timeout, at most a second (several of each in the window). */
export function watchIntervalMs(mutatorTimeoutMs: number): number {
  return Math.max(1, Math.min(mutatorTimeoutMs / 4, 1000));
}

/** The watchdog's reading of a board over time: stuck once it stayed still, with a mutation under way, for `stillForMs`. */
export class StillnessWatch {
  private lastSeq: number;
  private lastBeats: number;
  private stillSince: number;

  constructor(
    private readonly board: StuckBoard,
    private readonly stillForMs: number,
    now: number,
  ) {
    this.lastSeq = board.seq;
    this.lastBeats = board.beats;
    this.stillSince = now;
  }

  /** A look at `now` (monotonic ms): whether the process is stuck. */
  stuck(now: number): boolean {
    const { seq, beats } = this.board;
    // Moving: a mutation started or settled, or the main thread's event loop turns (its mutators only await).
    if (seq !== this.lastSeq || beats !== this.lastBeats || this.board.running === 0) {
      this.lastSeq = seq;
      this.lastBeats = beats;
      this.stillSince = now;
      return false;
    }
    return now - this.stillSince >= this.stillForMs;
  }
}

/**
 * Which of the mutations under way when the process was seen stuck is to
 * blame. A mutation stuck in synchronous code holds the thread, so every
 * other one under way started before it got stuck, while it awaited: the
 * oldest is taken. None is when one its timer failed is still under way: it
 * may be the one that blocks (it was processed as failed already), and
 * skipping another would fail an innocent mutation; if that other one is
 * the culprit, it stops the process again, alone this time.
 */
export function blamed(inFlight: readonly InFlightMutation[]): StuckMutation | undefined {
  if (inFlight.some((m) => m.timedOut)) return undefined;
  const oldest = inFlight[0];
  return oldest === undefined ? undefined : { roomID: oldest.roomID, clientID: oldest.clientID, mutationID: oldest.mutationID };
}

/** Most stuck mutations a room process is told to skip (the oldest are forgotten: their clients have long moved on). */
export const MAX_STUCK_MUTATIONS = 1000;

/** The stuck mutations to skip, bounded, oldest forgotten first. */
export class StuckList {
  private readonly keys = new Set<string>();

  constructor(list: readonly StuckMutation[] = []) {
    for (const m of list) this.add(m);
  }

  add(m: StuckMutation): void {
    const key = keyOf(m.roomID, m.clientID, m.mutationID);
    this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size > MAX_STUCK_MUTATIONS) this.keys.delete(this.keys.values().next().value!);
  }

  has(roomID: string, clientID: string, mutationID: number): boolean {
    return this.keys.size > 0 && this.keys.has(keyOf(roomID, clientID, mutationID));
  }

  get size(): number {
    return this.keys.size;
  }

  toJSON(): StuckMutation[] {
    return [...this.keys].map((k) => JSON.parse(k) as [string, string, number]).map(([roomID, clientID, mutationID]) => ({ roomID, clientID, mutationID }));
  }
}

function keyOf(roomID: string, clientID: string, mutationID: number): string {
  return JSON.stringify([roomID, clientID, mutationID]);
}
