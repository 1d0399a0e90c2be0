/**
 * A write-ahead log of local mutations, shared by every client (tab) of one
 * local store. The shared store is written in the background at most once a
 * second (SPEC.md §9), so a page closed right after an edit could lose it;
 * each mutation is therefore also appended here at once, in one small write.
 *
 * Each client has a log of its own, keyed by mutation id: `l/<client>` holds
 * its bounds, `l/<client>/<id>` its entries; `l/clients` lists the logged
 * clients with their group. Only the owner appends (two puts, no read). Anyone
 * may trim a prefix (entries already stored or acknowledged), which keeps the
 * owner's appends safe: its cached lower bound may point at deleted entries,
 * which readers skip.
 */
import type { ReadonlyJSONValue } from '../../protocol/json';
import { withTransaction } from '../dag/with-transaction';
import type { KvRead, KvStore, KvWrite } from '../kv/types';

export interface LoggedMutation {
  readonly clientID: string;
  readonly id: number;
  readonly name: string;
  readonly args: unknown;
  readonly timestamp: number;
}

/** One client's log as read back. */
export interface ClientLog {
  readonly clientID: string;
  readonly clientGroupID: string;
  /** Entries, oldest first (ids increasing). */
  readonly entries: readonly LoggedMutation[];
}

const INDEX_KEY = 'l/clients';
const boundsKey = (clientID: string) => `l/${clientID}`;
const entryKey = (clientID: string, id: number) => `l/${clientID}/${id}`;

type Bounds = {
  /** Lowest id that may still be logged. */
  readonly first: number;
  /** One past the highest id logged. */
  readonly next: number;
};

function readBounds(value: unknown): Bounds | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { first, next } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(next) || (first as number) > (next as number)) return undefined;
  return { first: first as number, next: next as number };
}

async function readIndex(kv: KvRead): Promise<Record<string, string>> {
  const value = await kv.get(INDEX_KEY);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const out: Record<string, string> = {};
  for (const [clientID, group] of Object.entries(value)) if (typeof group === 'string') out[clientID] = group;
  return out;
}

function isLoggedMutation(value: unknown, clientID: string, id: number): value is LoggedMutation {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return entry.clientID === clientID && entry.id === id && typeof entry.name === 'string' && 'args' in entry && typeof entry.timestamp === 'number';
}

const withKvWrite = <R>(kv: KvStore, fn: (w: KvWrite) => Promise<R>): Promise<R> => withTransaction(() => kv.write(), fn);

/** The log of the client that owns it: appends and trims. */
export class OwnLog {
  readonly #kv: KvStore;
  readonly #clientID: string;
  readonly #clientGroupID: string;
  #bounds: Bounds | undefined;
  /** Listed in the log's index (by this client's first write). */
  #registered = false;
  /** Writes run one after another, in the order made. */
  #tail: Promise<void> = Promise.resolve();
  /** The mutations the next write stores (it has not started yet). */
  #nextBatch: { readonly mutations: LoggedMutation[]; readonly run: Promise<void> } | undefined;

  constructor(kv: KvStore, clientID: string, clientGroupID: string) {
    this.#kv = kv;
    this.#clientID = clientID;
    this.#clientGroupID = clientGroupID;
  }

  /** Lists this client in the log's index (the first append does it too, in its own write). */
  register(): Promise<void> {
    const run = this.#tail.then(() =>
      withKvWrite(this.#kv, async (w) => {
        if (await this.#registerIn(w)) await w.commit();
        this.#registered = true;
      }),
    );
    this.#tail = run.catch(() => {});
    return run;
  }

  /**
   * Appends a mutation of this client; resolves once it is stored. Mutations
   * appended while a write is going on are stored together by the next one.
   */
  append(mutation: LoggedMutation): Promise<void> {
    let batch = this.#nextBatch;
    if (batch === undefined) {
      const mutations: LoggedMutation[] = [];
      const run = this.#tail.then(() => {
        if (this.#nextBatch?.mutations === mutations) this.#nextBatch = undefined;
        return this.#write(mutations);
      });
      batch = { mutations, run };
      this.#nextBatch = batch;
      this.#tail = run.catch(() => {});
    }
    batch.mutations.push(mutation);
    return batch.run;
  }

  #write(mutations: readonly LoggedMutation[]): Promise<void> {
    return withKvWrite(this.#kv, async (w) => {
      await this.#registerIn(w);
      let { first, next } = this.#bounds ?? { first: mutations[0]!.id, next: mutations[0]!.id };
      for (const mutation of mutations) {
        await w.put(entryKey(this.#clientID, mutation.id), mutation as unknown as ReadonlyJSONValue);
        first = Math.min(first, mutation.id);
        next = Math.max(next, mutation.id + 1);
      }
      await w.put(boundsKey(this.#clientID), { first, next });
      await w.commit();
      this.#registered = true;
      this.#bounds = { first, next };
    });
  }

  /** Lists this client in `w` unless it is already; resolves to whether it wrote anything. */
  async #registerIn(w: KvWrite): Promise<boolean> {
    if (this.#registered) return false;
    const [index, stored] = await Promise.all([readIndex(w), w.get(boundsKey(this.#clientID))]);
    const bounds = readBounds(stored);
    this.#bounds = bounds ?? { first: 1, next: 1 };
    if (index[this.#clientID] === this.#clientGroupID && bounds !== undefined) {
      this.#registered = true;
      return false;
    }
    await w.put(INDEX_KEY, { ...index, [this.#clientID]: this.#clientGroupID });
    await w.put(boundsKey(this.#clientID), this.#bounds);
    return true;
  }

  /** Drops this client's entries up to `id` (stored or acknowledged elsewhere). */
  async trimThrough(id: number): Promise<void> {
    await this.#tail;
    // Each slice raises the bound this client's appends write, so an append meanwhile does not undo it.
    const raise = (through: number) => {
      if (this.#bounds !== undefined && this.#bounds.first <= through) this.#bounds = { first: through + 1, next: Math.max(this.#bounds.next, through + 1) };
    };
    await trimLog(this.#kv, this.#clientID, id, raise);
    raise(id);
  }

  /** Removes this client's whole log (at a clean close, once everything is stored). */
  async drop(): Promise<void> {
    await this.#tail;
    await dropLog(this.#kv, this.#clientID);
  }
}

/** Every logged client's entries (of one group when given). */
export function readLogs(kv: KvStore, clientGroupID?: string): Promise<ClientLog[]> {
  return withTransaction(() => kv.read(), async (read) => {
    const index = await readIndex(read);
    const clients = Object.entries(index).filter(([, group]) => clientGroupID === undefined || group === clientGroupID);
    const entries = await Promise.all(clients.map(([clientID]) => readEntries(read, clientID, 0)));
    const out: ClientLog[] = [];
    clients.forEach(([clientID, group], i) => {
      if (entries[i] !== undefined) out.push({ clientID, clientGroupID: group, entries: entries[i] });
    });
    return out;
  });
}

/** One client's entries with ids above `afterID`, when it is a client of `clientGroupID`. */
export function readLog(kv: KvStore, clientID: string, clientGroupID: string, afterID: number): Promise<LoggedMutation[]> {
  return withTransaction(() => kv.read(), async (read) => {
    if ((await readIndex(read))[clientID] !== clientGroupID) return [];
    return (await readEntries(read, clientID, afterID)) ?? [];
  });
}

async function readEntries(read: KvRead, clientID: string, afterID: number): Promise<LoggedMutation[] | undefined> {
  const bounds = readBounds(await read.get(boundsKey(clientID)));
  if (bounds === undefined) return undefined;
  const first = Math.max(bounds.first, afterID + 1);
  const ids = Array.from({ length: Math.max(0, bounds.next - first) }, (_, i) => first + i);
  const values = await Promise.all(ids.map((id) => read.get(entryKey(clientID, id))));
  return values.filter((v, i): v is ReadonlyJSONValue => isLoggedMutation(v, clientID, ids[i]!)) as unknown as LoggedMutation[];
}

/**
 * Entries deleted per write when trimming: a trim of a 100,000-mutation
 * backlog's log in one write held every deleted key and entry at once (the
 * write's undo) until it committed. Each slice is a trim of its own (the
 * bounds move with it), so one that stops midway leaves a log as consistent
 * as any trim does.
 */
const TRIM_SLICE = 1_000;

/**
 * Drops a client's entries up to `id`, a slice of entries per write. Safe while
 * the owner appends: an append may write back the owner's older lower bound
 * (readers skip what is gone), so the slices follow a cursor of their own
 * rather than the stored bound; `onSlice` hears of each slice once stored.
 */
export async function trimLog(kv: KvStore, clientID: string, id: number, onSlice?: (through: number) => void): Promise<void> {
  let from = 0;
  for (;;) {
    const more = await withKvWrite(kv, async (w) => {
      const bounds = readBounds(await w.get(boundsKey(clientID)));
      if (bounds === undefined) return false;
      const start = Math.max(bounds.first, from);
      if (start > id) return false;
      const through = Math.min(id, start + TRIM_SLICE - 1);
      const upTo = Math.min(through, bounds.next - 1);
      for (let n = start; n <= upTo; n++) await w.del(entryKey(clientID, n));
      await w.put(boundsKey(clientID), { first: through + 1, next: Math.max(bounds.next, through + 1) });
      await w.commit();
      from = through + 1;
      onSlice?.(through);
      return through < id;
    });
    if (!more) return;
  }
}

/** Removes a client's log and its index entry (its entries first trimmed a slice per write). */
export async function dropLog(kv: KvStore, clientID: string): Promise<void> {
  const logged = await withTransaction(() => kv.read(), async (read) => readBounds(await read.get(boundsKey(clientID))));
  if (logged !== undefined && logged.next > logged.first + TRIM_SLICE) await trimLog(kv, clientID, logged.next - 1 - TRIM_SLICE);
  return withKvWrite(kv, async (w) => {
    const index = await readIndex(w);
    const bounds = readBounds(await w.get(boundsKey(clientID)));
    if (bounds !== undefined) for (let n = bounds.first; n < bounds.next; n++) await w.del(entryKey(clientID, n));
    await w.del(boundsKey(clientID));
    if (clientID in index) {
      const { [clientID]: _gone, ...rest } = index;
      await w.put(INDEX_KEY, rest);
    }
    await w.commit();
  });
}
