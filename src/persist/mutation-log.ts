/**
 * A write-ahead log of local mutations in the kv store. The dag is written out
 * in the background at most once a second (SPEC.md §9), so a page closed or
 * reloaded right after an edit could lose it; each mutation is therefore also
 * appended here at once, in one small write. On the next open, logged
 * mutations the stored state lacks are replayed; entries leave the log when
 * the server acknowledges them or once the state holding them is stored.
 */
import type { KvStore } from '../kv/types';

export interface LoggedMutation {
  readonly clientID: string;
  readonly id: number;
  readonly name: string;
  readonly args: unknown;
  readonly timestamp: number;
}

const BOUNDS_KEY = 'g/log';
const entryKey = (seq: number) => `g/log/${seq}`;

interface Bounds {
  /** Sequence number of the oldest entry kept. */
  readonly first: number;
  /** Sequence number the next entry gets. */
  readonly next: number;
}

function readBounds(value: unknown): Bounds {
  if (typeof value === 'object' && value !== null) {
    const { first, next } = value as Record<string, unknown>;
    if (Number.isSafeInteger(first) && Number.isSafeInteger(next) && (first as number) <= (next as number)) {
      return { first: first as number, next: next as number };
    }
  }
  return { first: 0, next: 0 };
}

function isLoggedMutation(value: unknown): value is LoggedMutation {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    typeof entry.clientID === 'string' &&
    Number.isSafeInteger(entry.id) &&
    typeof entry.name === 'string' &&
    'args' in entry &&
    typeof entry.timestamp === 'number'
  );
}

/**
 * The log's keys in a kv store. With `exclusive`, this instance is the only
 * writer (the page holds the store's slot), so it keeps the bounds in memory
 * and an append is two puts with no read: the fastest write IndexedDB offers.
 */
export class MutationLog {
  readonly #kv: KvStore;
  readonly #exclusive: boolean;
  #bounds: Bounds | undefined;

  constructor(kv: KvStore, { exclusive = false }: { exclusive?: boolean } = {}) {
    this.#kv = kv;
    this.#exclusive = exclusive;
  }

  async append(mutation: LoggedMutation): Promise<void> {
    const write = await this.#kv.write();
    try {
      const bounds = this.#exclusive && this.#bounds !== undefined ? this.#bounds : readBounds(await write.get(BOUNDS_KEY));
      const next = { first: bounds.first, next: bounds.next + 1 };
      await write.put(entryKey(bounds.next), mutation as never);
      await write.put(BOUNDS_KEY, next);
      await write.commit();
      this.#bounds = next;
    } catch (error) {
      write.release();
      throw error;
    }
  }

  /** Every entry, oldest first. Entries that are not well-formed are skipped. */
  async entries(): Promise<LoggedMutation[]> {
    const read = await this.#kv.read();
    try {
      const bounds = readBounds(await read.get(BOUNDS_KEY));
      this.#bounds = bounds;
      const values = await Promise.all(range(bounds).map((seq) => read.get(entryKey(seq))));
      return (values as unknown[]).filter(isLoggedMutation);
    } finally {
      read.release();
    }
  }

  /** Removes the entries `done` says are safe elsewhere (acknowledged by the server, or stored). */
  async removeWhere(done: (entry: LoggedMutation) => boolean): Promise<void> {
    const write = await this.#kv.write();
    try {
      const bounds = readBounds(await write.get(BOUNDS_KEY));
      const seqs = range(bounds);
      const values = await Promise.all(seqs.map((seq) => write.get(entryKey(seq))));
      let kept = 0;
      for (let i = 0; i < seqs.length; i++) {
        const value = values[i];
        if (isLoggedMutation(value) && !done(value)) {
          if (kept !== i) await write.put(entryKey(bounds.first + kept), value as never);
          kept++;
        }
      }
      if (kept === seqs.length) {
        write.release();
        return;
      }
      for (let seq = bounds.first + kept; seq < bounds.next; seq++) await write.del(entryKey(seq));
      const trimmed = { first: bounds.first, next: bounds.first + kept };
      await write.put(BOUNDS_KEY, trimmed);
      await write.commit();
      this.#bounds = trimmed;
    } catch (error) {
      write.release();
      throw error;
    }
  }
}

function range({ first, next }: Bounds): number[] {
  return Array.from({ length: next - first }, (_, i) => first + i);
}
