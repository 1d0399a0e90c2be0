import type { ReadonlyJSONValue } from '../protocol/json';
import type { PatchOperation } from '../src/protocol';
import { deepFreeze } from './json-copy';
import { compareKeys, lowerBound } from './key-order';
import { setOwn } from './engine/own-record';

/**
 * A key's state with the version that wrote it: a value as JSON text (parsed
 * on first read), or a tombstone (`json` undefined).
 */
export interface Entry {
  readonly version: number;
  readonly json: string | undefined;
  /** The parsed value, once read or when written by a mutator. */
  value?: ReadonlyJSONValue;
}

export interface ClientRecord {
  readonly clientGroupID: string;
  readonly lastMutationID: number;
  /** The user the client is bound to; undefined for records stored before clients were bound to users. */
  readonly userID?: string | undefined;
}

/** An entry for a value (or a tombstone for undefined) written at `version`. */
export function entryOf(value: ReadonlyJSONValue | undefined, version: number): Entry {
  return value === undefined ? { version, json: undefined } : { version, json: JSON.stringify(value), value };
}

/** What a put operation of a catch-up patch adds around its key and value: `{"op":"put","key":` `,"value":` `}` and a comma. */
const PUT_OP_BYTES = 29;
/** A key JSON writes with escapes (`"`, `\\`, control characters: up to 6 bytes for one). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/**
 * Bytes a live entry counts against the room's size limit: what it adds to a
 * catch-up poke (its put operation, key and JSON text in UTF-8), so a room
 * within the limit always fits in one catch-up, even one of many tiny entries
 * or of keys that JSON escapes.
 */
export function entryBytes(key: string, json: string | undefined): number {
  if (json === undefined) return 0;
  const keyBytes = NEEDS_ESCAPE.test(key) ? Buffer.byteLength(JSON.stringify(key)) : Buffer.byteLength(key) + 2;
  return PUT_OP_BYTES + keyBytes + Buffer.byteLength(json);
}

/**
 * The in-memory state of one room: data with per-key versions and tombstones,
 * kept in key order, plus the clients' last mutation ids and users. It knows
 * nothing of sockets or storage.
 */
export class RoomData {
  version: number;
  /** Catch-up from a cookie below this must start with `clear`: older tombstones were pruned. */
  tombstoneHorizon: number;
  private readonly entries = new Map<string, Entry>();
  /** Every key of `entries` (tombstones too), in UTF-8 order. */
  private readonly sorted: string[] = [];
  private tombstones = 0;
  private liveBytes = 0;
  private readonly clientRecords = new Map<string, ClientRecord>();
  private readonly groups = new Map<string, Set<string>>();
  /** The user of each client group: the first user one of its clients was bound to. */
  private readonly groupUsers = new Map<string, string>();
  /** The version whose batch last moved a client's last mutation id, when this process saw it (else unknown). */
  private readonly mutationIDChangedAt = new Map<string, number>();

  constructor(version = 0, tombstoneHorizon = 0) {
    this.version = version;
    this.tombstoneHorizon = tombstoneHorizon;
  }

  /** Fills an empty room from stored entries in one pass (sorting once instead of inserting one by one). */
  loadEntries(entries: Iterable<readonly [string, Entry]>): void {
    if (this.entries.size > 0) throw new Error('loadEntries needs an empty room');
    for (const [key, entry] of entries) {
      this.entries.set(key, entry);
      if (entry.json === undefined) this.tombstones++;
      else this.liveBytes += entryBytes(key, entry.json);
    }
    for (const key of [...this.entries.keys()].sort(compareKeys)) this.sorted.push(key);
  }

  get clients(): ReadonlyMap<string, ClientRecord> {
    return this.clientRecords;
  }

  /**
   * `changedAt`: the version of the batch that set this last mutation id (a
   * recovery pull from an older cookie includes it). Without it a new id's
   * version is unknown, and every recovery pull includes it.
   */
  setClient(clientID: string, record: ClientRecord, changedAt?: number): void {
    const old = this.clientRecords.get(clientID);
    if (old?.lastMutationID !== record.lastMutationID) {
      if (changedAt === undefined) this.mutationIDChangedAt.delete(clientID);
      else this.mutationIDChangedAt.set(clientID, changedAt);
    }
    if (old !== undefined && old.clientGroupID !== record.clientGroupID) this.groups.get(old.clientGroupID)?.delete(clientID);
    this.clientRecords.set(clientID, record);
    if (record.userID !== undefined && !this.groupUsers.has(record.clientGroupID)) this.groupUsers.set(record.clientGroupID, record.userID);
    let group = this.groups.get(record.clientGroupID);
    if (group === undefined) this.groups.set(record.clientGroupID, (group = new Set()));
    group.add(clientID);
  }

  /** The user a client group belongs to (undefined: none of its clients is bound to a user yet). */
  groupUser(clientGroupID: string): string | undefined {
    return this.groupUsers.get(clientGroupID);
  }

  /**
   * clientID → last mutation id, for the clients of one group that have
   * processed mutations; with `since` (a cookie), only those whose id changed
   * after it (and those whose change this process did not see: more is
   * allowed, fewer never).
   */
  groupMutationIDs(clientGroupID: string, since: number | null = null): Record<string, number> {
    const out: Record<string, number> = {};
    for (const id of this.groups.get(clientGroupID) ?? []) {
      const lmid = this.clientRecords.get(id)!.lastMutationID;
      const changedAt = this.mutationIDChangedAt.get(id);
      if (since !== null && changedAt !== undefined && changedAt <= since) continue;
      if (lmid > 0) setOwn(out, id, lmid);
    }
    return out;
  }

  get liveCount(): number {
    return this.entries.size - this.tombstones;
  }

  get tombstoneCount(): number {
    return this.tombstones;
  }

  /** What the live entries add to a catch-up (entryBytes): what the room size limit counts. */
  get byteSize(): number {
    return this.liveBytes;
  }

  getEntry(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  get(key: string): ReadonlyJSONValue | undefined {
    const e = this.entries.get(key);
    if (e === undefined || e.json === undefined) return undefined;
    return (e.value ??= deepFreeze(JSON.parse(e.json) as ReadonlyJSONValue));
  }

  /** Sets (or with `undefined` restores absence of) the entry of `key`. */
  setEntry(key: string, entry: Entry | undefined): void {
    const old = this.entries.get(key);
    if (old === undefined && entry === undefined) return;
    if (old?.json !== undefined && entry?.json !== undefined) {
      // A value replaces a value: only the JSON text's part of entryBytes changes.
      this.liveBytes += Buffer.byteLength(entry.json) - Buffer.byteLength(old.json);
      this.entries.set(key, entry);
      return;
    }
    if (old !== undefined) {
      if (old.json === undefined) this.tombstones--;
      else this.liveBytes -= entryBytes(key, old.json);
    }
    if (entry === undefined) {
      this.entries.delete(key);
      this.sorted.splice(lowerBound(this.sorted, key), 1);
      return;
    }
    if (entry.json === undefined) this.tombstones++;
    else this.liveBytes += entryBytes(key, entry.json);
    this.entries.set(key, entry);
    if (old === undefined) this.sorted.splice(lowerBound(this.sorted, key), 0, key);
  }

  /** The first live key at or after `from` (after it when `exclusive`), or undefined. */
  nextLiveKey(from: string, exclusive: boolean): string | undefined {
    for (let i = lowerBound(this.sorted, from, exclusive); i < this.sorted.length; i++) {
      const key = this.sorted[i]!;
      if (this.entries.get(key)!.json !== undefined) return key;
    }
    return undefined;
  }

  /** Live entries in key order. */
  *live(): Generator<[string, ReadonlyJSONValue]> {
    for (const key of this.sorted) {
      const v = this.get(key);
      if (v !== undefined) yield [key, v];
    }
  }

  /** Every entry, tombstones too, in key order. */
  *all(): Generator<[string, Entry]> {
    for (const key of this.sorted) yield [key, this.entries.get(key)!];
  }

  /**
   * The patch (as JSON text of the operation list) that takes a client from
   * `cookie` to the current version: the entries written after it (puts, and
   * dels for tombstones), or `clear` and every live entry when `cookie` is
   * null, older than the tombstone horizon, or the difference would not be
   * smaller than the full state. Built from the stored JSON text: nothing is
   * parsed, copied or walked.
   */
  patchJSONSince(cookie: number | null): string {
    if (cookie !== null && cookie >= this.version) return '[]';
    if (cookie !== null && cookie >= this.tombstoneHorizon) {
      const ops: string[] = [];
      const budget = this.liveCount;
      for (const [key, e] of this.all()) {
        if (e.version <= cookie) continue;
        if (ops.length >= budget) return this.fullPatchJSON();
        ops.push(opJSON(key, e.json));
      }
      return `[${ops.join(',')}]`;
    }
    return this.fullPatchJSON();
  }

  /** patchJSONSince, parsed (for tests and tools). */
  patchSince(cookie: number | null): PatchOperation[] {
    return JSON.parse(this.patchJSONSince(cookie)) as PatchOperation[];
  }

  private fullPatchJSON(): string {
    const ops: string[] = ['{"op":"clear"}'];
    for (const [key, e] of this.all()) if (e.json !== undefined) ops.push(opJSON(key, e.json));
    return `[${ops.join(',')}]`;
  }

  /** The horizon that leaves at most `keep` tombstones, or undefined when there are not more. */
  horizonKeeping(keep: number): number | undefined {
    if (this.tombstones <= keep) return undefined;
    const versions: number[] = [];
    for (const e of this.entries.values()) if (e.json === undefined) versions.push(e.version);
    versions.sort((a, b) => a - b);
    return versions[versions.length - keep - 1]!;
  }

  /** Drops tombstones with version <= `horizon` and raises the horizon. */
  dropTombstones(horizon: number): void {
    for (const [key, e] of [...this.entries]) if (e.json === undefined && e.version <= horizon) this.setEntry(key, undefined);
    this.tombstoneHorizon = Math.max(this.tombstoneHorizon, horizon);
  }

  /** Removes the oldest tombstones so at most `keep` remain; returns the horizon. */
  pruneTombstones(keep: number): number {
    const horizon = this.horizonKeeping(keep);
    if (horizon !== undefined) this.dropTombstones(horizon);
    return this.tombstoneHorizon;
  }
}

/** One patch operation as JSON text. */
export function opJSON(key: string, json: string | undefined): string {
  return json === undefined ? `{"op":"del","key":${JSON.stringify(key)}}` : `{"op":"put","key":${JSON.stringify(key)},"value":${json}}`;
}
