import type { ReadonlyJSONValue } from '../protocol/json';
import { compareKeys } from './key-order';
import { entryOf, opJSON, type Entry, type RoomData } from './room-data';
import type { StoredEntry } from './storage/types';

/**
 * Writes of one batch straight into the room's data, with two undo levels:
 * the current mutation (rolled back when its mutator throws) and the whole
 * batch (rolled back when the storage commit fails).
 */
export class BatchWriter {
  private readonly beforeBatch = new Map<string, Entry | undefined>();
  private readonly beforeMutation = new Map<string, Entry | undefined>();

  constructor(
    readonly data: RoomData,
    readonly version: number,
  ) {}

  /** Writes `value`, or deletes with `undefined`; returns whether the key had a value. */
  write(key: string, value: ReadonlyJSONValue | undefined): boolean {
    const old = this.data.getEntry(key);
    const existed = old !== undefined && old.json !== undefined;
    if (value === undefined && !existed) return false;
    if (!this.beforeMutation.has(key)) this.beforeMutation.set(key, old);
    if (!this.beforeBatch.has(key)) this.beforeBatch.set(key, old);
    this.data.setEntry(key, entryOf(value, this.version));
    return existed;
  }

  /** The current mutation succeeded: its writes stay. */
  endMutation(): void {
    this.beforeMutation.clear();
  }

  /** The current mutation failed: undo its writes. */
  rollbackMutation(): void {
    for (const [key, entry] of this.beforeMutation) this.data.setEntry(key, entry);
    this.beforeMutation.clear();
  }

  /** The batch could not be stored: undo everything it wrote. */
  rollbackBatch(): void {
    this.rollbackMutation();
    for (const [key, entry] of this.beforeBatch) this.data.setEntry(key, entry);
  }

  /**
   * Settles the batch: drops tombstones of keys that had no value before it,
   * and returns what to store and the patch (JSON text of the operation list)
   * that takes a client across it.
   */
  finish(): { entries: StoredEntry[]; patchJSON: string } {
    const entries: StoredEntry[] = [];
    const patch: string[] = [];
    const keys = [...this.beforeBatch.keys()].sort(compareKeys);
    for (const key of keys) {
      const before = this.beforeBatch.get(key);
      const now = this.data.getEntry(key);
      const hadValue = before !== undefined && before.json !== undefined;
      if (now === undefined || now === before) continue;
      if (now.json === undefined && !hadValue) {
        this.data.setEntry(key, before);
        continue;
      }
      entries.push({ key, json: now.json, version: now.version });
      patch.push(opJSON(key, now.json));
    }
    return { entries, patchJSON: `[${patch.join(',')}]` };
  }
}
