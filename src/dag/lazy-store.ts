/**
 * The in-memory layer over a persistent DagStore.
 *
 * - New chunks are "memory-only": they live in memory with their own ref
 *   counts (from memory heads and other memory-only chunks) and are collected
 *   when those reach 0. References to persisted chunks are not counted here;
 *   the persistent store keeps those alive through its own heads.
 * - Persisted chunks are loaded on first read and kept in an LRU cache capped
 *   by estimated size, so opening a big store reads only what is touched.
 * - Heads live in memory. A head is read from the persistent store the first
 *   time it is asked for; after that the memory value rules.
 * - persist() writes every memory-only chunk reachable from the heads changed
 *   since the last persist, and those heads, in one persistent write. After it
 *   those chunks are ordinary cached chunks. Commits may run while a persist
 *   writes; what they add is left for the next persist.
 *
 * Reads and writes take a readers/writer lock, so a commit (which may collect
 * memory-only chunks) never runs under an open read. Closing closes the
 * persistent store too.
 */
import { STORE_MEMORY_CACHE_BYTES } from '../../protocol/constants';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { StoreClosedError, TransactionClosedError } from '../kv/errors';
import { RWLock, type Unlock } from '../kv/rw-lock';
import { ChunkCache } from './chunk-cache';
import { estimateChunkSize } from './chunk-size';
import { ChunkNotFoundError, CorruptedStorageError } from './errors';
import { newHashFactory, type CreateHash } from './hash';
import { addDelta } from './ref-count';
import type { PersistScheduler } from './persist-scheduler';
import type { Chunk, ChunkHint, DagRead, DagStore, DagWrite, Hash } from './types';
import { withTransaction } from './with-transaction';

export interface LazyDagStoreOptions {
  /** Cap of the cache of persisted chunks, by estimated size. @default STORE_MEMORY_CACHE_BYTES */
  cacheBytes?: number;
  /** Makes the hashes of new chunks. @default newHashFactory() */
  createHash?: CreateHash;
  /** Heads whose targets the caller knows already (not read from the persistent store, not to be persisted). */
  knownHeads?: Readonly<Record<string, Hash>>;
}

/** What a store asks of its persist scheduler. */
type PersistRequests = Pick<PersistScheduler, 'schedule'>;

interface MemoryChunk {
  chunk: Chunk;
  count: number;
}

export class LazyDagStore implements DagStore {
  readonly #persistent: DagStore;
  readonly #lock = new RWLock();
  readonly #createHash: CreateHash;
  // (An object's method, not a callback: the same call target in every store of a page, see CreateHash.)
  #scheduler: PersistRequests | undefined;
  #persistHead: string | undefined;
  readonly #cache: ChunkCache;
  /** Memory-only chunks with their memory ref counts (always above 0). */
  readonly #mem = new Map<Hash, MemoryChunk>();
  /** Heads known in memory; `undefined` means known to be absent. */
  readonly #heads = new Map<string, Hash | undefined>();
  /** Heads changed since the last persist. */
  readonly #dirtyHeads = new Set<string>();
  #persisting: Promise<void> = Promise.resolve();
  /** Persisted chunks being read into the cache. */
  readonly #loading = new Map<Hash, Promise<Chunk | undefined>>();
  #closed = false;

  constructor(persistent: DagStore, options: LazyDagStoreOptions = {}) {
    this.#persistent = persistent;
    this.#createHash = options.createHash ?? newHashFactory();
    this.#cache = new ChunkCache(options.cacheBytes ?? STORE_MEMORY_CACHE_BYTES);
    for (const [name, hash] of Object.entries(options.knownHeads ?? {})) this.#heads.set(name, hash);
  }

  async read(): Promise<DagRead> {
    this.#assertOpen();
    return new LazyDagRead(this, await this.#lock.read());
  }

  async write(): Promise<DagWrite> {
    this.#assertOpen();
    return new LazyDagWrite(this, await this.#lock.write());
  }

  withRead<R>(fn: (read: DagRead) => R | Promise<R>): Promise<R> {
    return withTransaction(() => this.read(), fn);
  }

  withWrite<R>(fn: (write: DagWrite) => R | Promise<R>): Promise<R> {
    return withTransaction(() => this.write(), fn);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#persisting.catch(() => {});
    this.#cache.clear();
    await this.#persistent.close();
  }

  /** From now on, every commit that moves a head (`head`, when given) asks `scheduler` for a persist. */
  schedulePersists(scheduler: PersistRequests, head?: string): void {
    this.#scheduler = scheduler;
    this.#persistHead = head;
  }

  /** Memory-only chunks not yet persisted (for tests and metrics). */
  get memoryOnlyChunkCount(): number {
    return this.#mem.size;
  }

  /** Estimated bytes held by the cache of persisted chunks. */
  get cachedBytes(): number {
    return this.#cache.bytes;
  }

  /** Whether a commit happened that the persistent store has not seen. */
  get hasUnpersistedChanges(): boolean {
    return this.#dirtyHeads.size > 0;
  }

  /**
   * Writes the memory-only chunks reachable from the changed heads, and those
   * heads, to the persistent store in one write. Persists run one at a time.
   */
  persist(): Promise<void> {
    const run = this.#persisting.catch(() => {}).then(() => this.#persistNow());
    this.#persisting = run;
    return run;
  }

  async #persistNow(): Promise<void> {
    if (this.#dirtyHeads.size === 0) return;
    const heads = new Map<string, Hash | undefined>();
    for (const name of this.#dirtyHeads) heads.set(name, this.#heads.get(name));
    this.#dirtyHeads.clear();
    const chunks = this.memoryOnlyClosure(heads.values());
    try {
      await this.#persistent.withWrite(async (w) => {
        for (const chunk of chunks) await w.putChunk(chunk);
        for (const [name, hash] of heads) {
          if (hash === undefined) await w.removeHead(name);
          else await w.setHead(name, hash);
        }
        await w.commit();
      });
    } catch (e) {
      for (const name of heads.keys()) this.#dirtyHeads.add(name);
      throw e;
    }
    this.markPersisted(chunks);
  }

  /**
   * Memory-only chunks reachable from `roots`, children before parents: what
   * a persist of those roots must write. `follow` picks the refs to follow
   * from a chunk (all of them by default): a caller that stores some chunks
   * without some of their children (see markPersisted) leaves those out.
   * Iterative: a long offline session makes a long chain of commits.
   */
  memoryOnlyClosure(roots: Iterable<Hash | undefined>, follow: (chunk: Chunk) => readonly Hash[] = (chunk) => chunk.refs): Chunk[] {
    const out: Chunk[] = [];
    const seen = new Set<Hash>();
    const stack: { chunk: Chunk; refs: readonly Hash[]; next: number }[] = [];
    const enter = (hash: Hash | undefined): void => {
      if (hash === undefined || seen.has(hash)) return;
      seen.add(hash);
      const chunk = this.#mem.get(hash)?.chunk;
      if (chunk !== undefined) stack.push({ chunk, refs: follow(chunk), next: 0 });
    };
    for (const root of roots) {
      enter(root);
      while (stack.length > 0) {
        const top = stack[stack.length - 1]!;
        if (top.next < top.refs.length) {
          enter(top.refs[top.next++]);
        } else {
          stack.pop();
          out.push(top.chunk);
        }
      }
    }
    return out;
  }

  /** Whether a chunk lives only in memory (not written to the persistent store yet). */
  isMemoryOnly(hash: Hash): boolean {
    return this.#mem.has(hash);
  }

  /**
   * After the chunks were written to the persistent store: they are ordinary
   * cached chunks from now on, and hold no memory-only chunk any more. A
   * memory-only child that was not written with its parent (the caller
   * stored the parent without it) is collected once nothing else holds it.
   * `cache` picks those kept in the cache (all by default); the others are
   * read back from the persistent store if asked for.
   */
  markPersisted(chunks: Iterable<Chunk>, cache: (chunk: Chunk) => boolean = () => true): void {
    for (const { hash } of chunks) {
      const entry = this.#mem.get(hash);
      if (entry === undefined) continue;
      this.#mem.delete(hash);
      if (cache(entry.chunk)) this.#cache.put(entry.chunk, estimateChunkSize(entry.chunk));
      this.#release(entry.chunk.refs);
    }
  }

  /** Memory-only chunks lose a reference each (once per occurrence); those left with none are collected, and let go of theirs. */
  #release(refs: readonly Hash[]): void {
    const pending = [refs];
    while (pending.length > 0) {
      for (const ref of pending.pop()!) {
        const child = this.#mem.get(ref);
        if (child === undefined || --child.count > 0) continue;
        this.#mem.delete(ref);
        pending.push(child.chunk.refs);
      }
    }
  }

  /**
   * A persisted chunk was deleted from the persistent store (its count there
   * reached 0): its cached copy goes (a dropped chain of 100,000 acknowledged
   * commits would otherwise stay in the cache until evicted). Only the cache:
   * a memory-only chunk of the same hash is this store's own.
   */
  forgetPersisted(hash: Hash): void {
    this.#cache.delete(hash);
  }

  /**
   * Persisted chunks read elsewhere (e.g. in the transaction that opened the
   * store): reads find them in the cache. They are sized for the cache's cap
   * when its accounting is next needed (ChunkCache.putUnsized), not on the
   * way to the store's first read.
   */
  preload(chunks: Iterable<Chunk>): void {
    for (const chunk of chunks) if (!this.#mem.has(chunk.hash)) this.#cache.putUnsized(chunk, estimateChunkSize);
  }

  /**
   * Gathers the chunks reachable from `root` into memory, breadth first, until
   * about `maxBytes` of them are there (loading the persisted ones not cached
   * yet); returns the bytes gathered. A chunk that is not in memory and that
   * `skip` picks is neither loaded nor walked past (e.g. a tab's own stored
   * commits below another tab's head: the tab knows them already).
   */
  async prefetch(root: Hash, maxBytes: number, skip?: (hash: Hash) => boolean): Promise<number> {
    this.#assertOpen();
    const read = await this.#persistent.read();
    let gathered = 0;
    try {
      const seen = new Set<Hash>([root]);
      let level: Hash[] = [root];
      while (level.length > 0 && gathered < maxBytes) {
        const next: Hash[] = [];
        for (const hash of level) {
          if (gathered >= maxBytes) break;
          let chunk = this.memoryChunk(hash);
          if (chunk === undefined) {
            if (skip?.(hash) === true) continue;
            chunk = await read.getChunk(hash);
            if (chunk === undefined) continue;
            this.cacheLoaded(chunk);
          }
          gathered += estimateChunkSize(chunk);
          for (const ref of chunk.refs) {
            if (!seen.has(ref)) {
              seen.add(ref);
              next.push(ref);
            }
          }
        }
        level = next;
      }
    } finally {
      read.release();
    }
    return gathered;
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreClosedError();
  }

  // ---- used by the transactions below ----

  /** @internal */
  memoryChunk(hash: Hash): Chunk | undefined {
    return this.#mem.get(hash)?.chunk ?? this.#cache.get(hash);
  }

  /** @internal */
  openPersistentRead(): Promise<DagRead> {
    return this.#persistent.read();
  }

  /**
   * @internal Loads a persisted chunk into the cache; reads that miss it
   * while it loads wait for that load (many subscriptions starting at once
   * ask for the same root) instead of reading it again. A load that found
   * nothing is not shared: the chunk may have been stored since it started.
   */
  async loadOnce(hash: Hash, load: () => Promise<Chunk | undefined>): Promise<Chunk | undefined> {
    const loading = this.#loading.get(hash);
    if (loading !== undefined) {
      const chunk = await loading;
      if (chunk !== undefined) return chunk;
    }
    const started = load().then((chunk) => {
      if (chunk !== undefined) this.cacheLoaded(chunk);
      return chunk;
    });
    this.#loading.set(hash, started);
    try {
      return await started;
    } finally {
      if (this.#loading.get(hash) === started) this.#loading.delete(hash);
    }
  }

  /** @internal */
  cacheLoaded(chunk: Chunk): void {
    if (!this.#mem.has(chunk.hash)) this.#cache.put(chunk, estimateChunkSize(chunk));
  }

  /** @internal */
  knownHead(name: string): { known: boolean; hash: Hash | undefined } {
    return { known: this.#heads.has(name), hash: this.#heads.get(name) };
  }

  /** @internal */
  learnHead(name: string, hash: Hash | undefined): void {
    if (!this.#heads.has(name)) this.#heads.set(name, hash);
  }

  /** @internal */
  createHash(): Hash {
    return this.#createHash.next();
  }

  #isHeadTarget(hash: Hash): boolean {
    for (const target of this.#heads.values()) if (target === hash) return true;
    return false;
  }

  /** @internal Applies a write's chunks, head moves and dropped refs (synchronously); runs under the write lock. */
  applyCommit(
    newChunks: ReadonlyMap<Hash, Chunk>,
    heads: ReadonlyMap<string, Hash | undefined>,
    oldHeads: ReadonlyMap<string, Hash | undefined>,
    keptRefs: ReadonlyMap<Hash, readonly Hash[]> = new Map(),
  ): void {
    // (forEach and indexed loops, no for-of: while a page's code is cold, each step of an iterator and
    // each destructured pair is an object, and this runs at every commit.)
    const deltas = new Map<Hash, number>();
    heads.forEach((hash, name) => {
      addDelta(deltas, oldHeads.get(name), -1);
      addDelta(deltas, hash, +1);
    });
    const mem = this.#mem;
    const { change, dead } = memoryRefCounts(deltas, newChunks, mem);
    // Checked before anything changes. A chunk's new count is its count and its change, for those whose
    // change is not 0 and those that died (no closure for it: one per commit, and a call per chunk).
    change.forEach((delta, hash) => {
      if (delta < 0 && (mem.get(hash)?.count ?? 0) + delta < 0) throw new CorruptedStorageError(hash, 'a memory ref count dropped below 0');
    });
    change.forEach((delta, hash) => {
      if (delta === 0 && dead?.has(hash) !== true) return;
      const entry = mem.get(hash);
      const count = (entry?.count ?? 0) + delta;
      if (entry !== undefined) {
        if (count === 0) mem.delete(hash);
        else entry.count = count;
        return;
      }
      const chunk = count === 0 ? undefined : newChunks.get(hash);
      if (chunk !== undefined && !this.#cache.has(hash)) mem.set(hash, { chunk, count });
    });
    heads.forEach((hash, name) => {
      this.#heads.set(name, hash);
      this.#dirtyHeads.add(name);
    });
    keptRefs.forEach((refs, hash) => {
      const entry = mem.get(hash);
      // A chunk a head points at keeps all its refs (another view may read its trees).
      if (entry === undefined || this.#isHeadTarget(hash)) return;
      const dropped = withoutOnce(entry.chunk.refs, refs);
      if (dropped === undefined) return;
      entry.chunk = { hash, data: entry.chunk.data, refs };
      this.#release(dropped);
    });
    const head = this.#persistHead;
    if (this.#scheduler !== undefined && (head === undefined ? heads.size > 0 : heads.has(head))) this.#scheduler.schedule();
  }
}

/**
 * computeRefCounts (ref-count.ts) for the memory layer, where every count
 * and ref is at hand: one synchronous pass, no per-chunk bookkeeping
 * objects (it runs at every commit). Tracked are the new chunks and the
 * memory-only ones; the others are held by the persistent store. Answers
 * the change of each count touched and the chunks left with none (no map of
 * new counts per commit).
 */
function memoryRefCounts(
  deltas: ReadonlyMap<Hash, number>,
  newChunks: ReadonlyMap<Hash, Chunk>,
  mem: ReadonlyMap<Hash, MemoryChunk>,
): { change: Map<Hash, number>; dead: Set<Hash> | undefined } {
  // (Plain loops and forEach: no iterator or pair object per step; this runs at every commit.)
  const change = new Map<Hash, number>();
  // Increments first: a new chunk that gains a reference takes hold of its children.
  const born = new Set<Hash>();
  const growing: Hash[] = [];
  deltas.forEach((delta, hash) => {
    if (delta === 0 || !(newChunks.has(hash) || mem.has(hash))) return;
    change.set(hash, (change.get(hash) ?? 0) + delta);
    if (delta > 0 && !born.has(hash) && newChunks.has(hash) && !mem.has(hash)) {
      born.add(hash);
      growing.push(hash);
    }
  });
  while (growing.length > 0) {
    const refs = newChunks.get(growing.pop()!)!.refs;
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i]!;
      const inMem = mem.has(ref);
      const isNew = !inMem && newChunks.has(ref);
      if (!isNew && !inMem) continue;
      change.set(ref, (change.get(ref) ?? 0) + 1);
      if (isNew && !born.has(ref)) {
        born.add(ref);
        growing.push(ref);
      }
    }
  }
  // Then decrements: a chunk left with none lets go of its children.
  let dead: Set<Hash> | undefined;
  const shrinking: Hash[] = [];
  change.forEach((delta, hash) => {
    if (delta < 0) shrinking.push(hash);
  });
  while (shrinking.length > 0) {
    const hash = shrinking.pop()!;
    if (dead?.has(hash)) continue;
    const before = mem.get(hash)?.count ?? 0;
    if ((before === 0 && !born.has(hash)) || before + change.get(hash)! !== 0) continue;
    (dead ??= new Set()).add(hash);
    // A persist finishing meanwhile may have moved the chunk out of memory: then it holds nothing here.
    const refs = (newChunks.get(hash) ?? mem.get(hash)?.chunk)?.refs;
    if (refs === undefined) continue;
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i]!;
      if (!(newChunks.has(ref) || mem.has(ref))) continue;
      change.set(ref, (change.get(ref) ?? 0) - 1);
      shrinking.push(ref);
    }
  }
  return { change, dead };
}

/** The refs of `all` that are not in `kept` (each kept occurrence matches one), or undefined when `kept` is not part of `all`. */
function withoutOnce(all: readonly Hash[], kept: readonly Hash[]): Hash[] | undefined {
  const left = all.slice();
  for (const ref of kept) {
    const i = left.indexOf(ref);
    if (i === -1) return undefined;
    left.splice(i, 1);
  }
  return left;
}

class LazyDagRead implements DagRead {
  protected readonly store: LazyDagStore;
  #unlock: Unlock | undefined;
  #persistentRead: Promise<DagRead> | undefined;

  constructor(store: LazyDagStore, unlock: Unlock) {
    this.store = store;
    this.#unlock = unlock;
  }

  async hasChunk(hash: Hash): Promise<boolean> {
    return (await this.getChunk(hash)) !== undefined;
  }

  peekChunk(hash: Hash): Chunk | undefined {
    this.assertOpen();
    return this.store.memoryChunk(hash);
  }

  async getChunk(hash: Hash, hint?: ChunkHint): Promise<Chunk | undefined> {
    this.assertOpen();
    const chunk = this.store.memoryChunk(hash);
    if (chunk !== undefined) return chunk;
    return this.store.loadOnce(hash, async () => (await this.#persistent()).getChunk(hash, hint));
  }

  async mustGetChunk(hash: Hash, hint?: ChunkHint): Promise<Chunk> {
    const chunk = await this.getChunk(hash, hint);
    if (chunk === undefined) throw new ChunkNotFoundError(hash);
    return chunk;
  }

  async getHead(name: string): Promise<Hash | undefined> {
    this.assertOpen();
    const { known, hash } = this.store.knownHead(name);
    if (known) return hash;
    const loaded = await (await this.#persistent()).getHead(name);
    this.store.learnHead(name, loaded);
    return this.store.knownHead(name).hash;
  }

  release(): void {
    const unlock = this.#unlock;
    if (unlock === undefined) return;
    this.#unlock = undefined;
    const persistentRead = this.#persistentRead;
    this.#persistentRead = undefined;
    // A persistent read still opening is released once it is open.
    void persistentRead?.then((r) => r.release(), () => {});
    unlock();
  }

  protected assertOpen(): void {
    if (this.#unlock === undefined) throw new TransactionClosedError();
  }

  #persistent(): Promise<DagRead> {
    return (this.#persistentRead ??= this.store.openPersistentRead());
  }
}

const PUT: Promise<void> = Promise.resolve();

class LazyDagWrite extends LazyDagRead implements DagWrite {
  readonly #newChunks = new Map<Hash, Chunk>();
  readonly #keptRefs = new Map<Hash, readonly Hash[]>();
  readonly #heads = new Map<string, Hash | undefined>();
  /** Each changed head's value before this write. */
  readonly #oldHeads = new Map<string, Hash | undefined>();

  createChunk<D extends ReadonlyJSONValue>(data: D, refs: readonly Hash[]): Chunk<D> {
    return { hash: this.store.createHash(), data, refs };
  }

  /**
   * Not an async function: a put answers a promise resolved already, made once (a commit puts a few
   * chunks). Like the other writes here, on a closed write it throws at once (callers await it).
   */
  putChunk(chunk: Chunk): Promise<void> {
    this.putChunkNow(chunk);
    return PUT;
  }

  putChunkNow(chunk: Chunk): void {
    this.assertOpen();
    this.#newChunks.set(chunk.hash, chunk);
  }

  override peekChunk(hash: Hash): Chunk | undefined {
    return this.#newChunks.get(hash) ?? super.peekChunk(hash);
  }

  override async getChunk(hash: Hash, hint?: ChunkHint): Promise<Chunk | undefined> {
    return this.#newChunks.get(hash) ?? super.getChunk(hash, hint);
  }

  override async getHead(name: string): Promise<Hash | undefined> {
    if (this.#heads.has(name)) return this.#heads.get(name);
    return super.getHead(name);
  }

  setHead(name: string, hash: Hash): Promise<void> {
    return this.#moveHead(name, hash);
  }

  removeHead(name: string): Promise<void> {
    return this.#moveHead(name, undefined);
  }

  keepOnlyRefs(hash: Hash, refs: readonly Hash[]): void {
    this.assertOpen();
    this.#keptRefs.set(hash, refs);
  }

  /** Not an async function either: the commit is applied at once. */
  commit(): Promise<void> {
    this.assertOpen();
    try {
      this.store.applyCommit(this.#newChunks, this.#heads, this.#oldHeads, this.#keptRefs);
    } finally {
      this.release();
    }
    return PUT;
  }

  /** Not an async function: a head known in memory (every head after its first read) is moved without a wait. */
  #moveHead(name: string, hash: Hash | undefined): Promise<void> {
    this.assertOpen();
    if (this.#oldHeads.has(name)) {
      this.#heads.set(name, hash);
      return PUT;
    }
    const known = this.store.knownHead(name);
    if (known.known) {
      this.#oldHeads.set(name, known.hash);
      this.#heads.set(name, hash);
      return PUT;
    }
    return super.getHead(name).then((old) => {
      if (!this.#oldHeads.has(name)) this.#oldHeads.set(name, old);
      this.#heads.set(name, hash);
    });
  }
}
