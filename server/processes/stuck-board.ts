import type { Mutation } from '../../src/protocol';
import { MAX_ID_BYTES } from '../stored-text';

/** A mutation by who sent it: what a room process that had to be stopped for it skips after its restart. */
export interface StuckMutation {
  readonly roomID: string;
  readonly clientID: string;
  readonly mutationID: number;
}

const SEQ = 0;
const RUNNING = 1;
const ROOM_BYTES = 2;
const CLIENT_BYTES = 3;
const HEADER_INTS = 4;
const MUTATION_ID_OFFSET = HEADER_INTS * Int32Array.BYTES_PER_ELEMENT;
const TEXT_OFFSET = MUTATION_ID_OFFSET + Float64Array.BYTES_PER_ELEMENT;
/** Room and client ids are at most MAX_ID_BYTES of UTF-8 each (refused longer at connect). */
const TEXT_BYTES = 2 * MAX_ID_BYTES;

/**
 * Where a room process marks the mutation its main thread is running, for a
 * watchdog thread of the same process to read: mutations started (a
 * sequence), how many are under way (an async mutator may wait while
 * another room's runs), and the last one started by room, client and id.
 */
export class StuckBoard {
  readonly buffer: SharedArrayBuffer;
  private readonly ints: Int32Array;
  private readonly mutationID: Float64Array;
  private readonly text: Uint8Array;
  private readonly encoder = new TextEncoder();

  constructor(buffer = new SharedArrayBuffer(TEXT_OFFSET + TEXT_BYTES)) {
    this.buffer = buffer;
    this.ints = new Int32Array(buffer, 0, HEADER_INTS);
    this.mutationID = new Float64Array(buffer, MUTATION_ID_OFFSET, 1);
    this.text = new Uint8Array(buffer, TEXT_OFFSET, TEXT_BYTES);
  }

  started(roomID: string, mutation: Mutation): void {
    const room = this.encoder.encodeInto(roomID, this.text.subarray(0, MAX_ID_BYTES)).written;
    const client = this.encoder.encodeInto(mutation.clientID, this.text.subarray(MAX_ID_BYTES)).written;
    Atomics.store(this.ints, ROOM_BYTES, room);
    Atomics.store(this.ints, CLIENT_BYTES, client);
    this.mutationID[0] = mutation.id;
    Atomics.add(this.ints, RUNNING, 1);
    Atomics.add(this.ints, SEQ, 1);
  }

  ended(): void {
    Atomics.sub(this.ints, RUNNING, 1);
    Atomics.add(this.ints, SEQ, 1);
  }

  /** Changes whenever a mutation starts or ends. */
  get seq(): number {
    return Atomics.load(this.ints, SEQ);
  }

  get running(): number {
    return Atomics.load(this.ints, RUNNING);
  }

  /** The mutation started last. */
  last(): StuckMutation {
    const decode = (from: number, bytes: number) => Buffer.from(this.text.buffer, this.text.byteOffset + from, bytes).toString('utf8');
    return {
      roomID: decode(0, Atomics.load(this.ints, ROOM_BYTES)),
      clientID: decode(MAX_ID_BYTES, Atomics.load(this.ints, CLIENT_BYTES)),
      mutationID: this.mutationID[0]!,
    };
  }
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
