/**
 * The persistent chunk graph over a KvStore: chunks (data and refs), named
 * heads and reference counts. Heads count as references. At commit the counts
 * are brought up to date and every chunk whose count reaches 0 is deleted,
 * recursively, all in the kv write; chunks put but never referenced are not
 * written at all. Closing the dag store closes its kv store.
 */
import { REF_COUNT_MAX } from '../../protocol/constants';
import type { ReadonlyJSONValue } from '../../protocol/json';
import type { KvRead, KvStore, KvWrite } from '../kv/types';
import { ChunkNotFoundError, CorruptedStorageError, RefCountOverflowError } from './errors';
import { newHashFactory, type CreateHash } from './hash';
import { chunkDataKey, chunkRefCountKey, chunkRefsKey, headKey, metaKey } from './key-layout';
import { addDelta, computeRefCounts } from './ref-count';
import type { Chunk, ChunkHint, DagRead, DagStore, DagWrite, Hash } from './types';
import { withTransaction } from './with-transaction';

export interface PersistentDagStoreOptions {
  /** Makes the hashes of new chunks. @default newHashFactory() */
  createHash?: CreateHash;
  /**
   * Told of each chunk a commit of this store deleted (its count reached 0),
   * once that commit is done: e.g. a memory layer drops its cached copy.
   */
  onCollected?: (hash: Hash) => void;
  /** Told of each chunk a read (not a write) of this store found stored. */
  onChunkRead?: (hash: Hash) => void;
}

/** A read of the persistent dag, with the records kept beside it. */
export interface PersistentDagRead extends DagRead {
  getMeta(name: string): Promise<ReadonlyJSONValue | undefined>;
  /** A hint: the records whose names start with `prefix` are read at once (later getMeta calls of them are answered from memory). */
  prefetchMeta(prefix: string): Promise<void>;
  /** How many heads and stored chunks refer to the chunk (0 when it is not stored). */
  refCount(hash: Hash): Promise<number>;
}

/** A write of the persistent dag: chunk, head and record changes commit together. */
export interface PersistentDagWrite extends DagWrite, PersistentDagRead {
  /**
   * Puts a chunk the store cannot hold yet (made in memory and never stored):
   * its count starts from 0 without a read.
   */
  putNewChunk(chunk: Chunk): Promise<void>;
  putMeta(name: string, value: ReadonlyJSONValue): Promise<void>;
  delMeta(name: string): Promise<void>;
  /** The caller knows these heads are not stored: this transaction asks nothing for them (see KvWrite.knownAbsent). */
  headsAbsent(names: readonly string[]): void;
}

export class PersistentDagStore implements DagStore {
  readonly #kv: KvStore;
  readonly #createHash: CreateHash;
  readonly #onCollected: ((hash: Hash) => void) | undefined;
  readonly #onChunkRead: ((hash: Hash) => void) | undefined;

  constructor(kv: KvStore, options: PersistentDagStoreOptions = {}) {
    this.#kv = kv;
    this.#createHash = options.createHash ?? newHashFactory();
    this.#onCollected = options.onCollected;
    this.#onChunkRead = options.onChunkRead;
  }

  async read(): Promise<PersistentDagRead> {
    return new PersistentRead(await this.#kv.read(), this.#onChunkRead);
  }

  async write(): Promise<PersistentDagWrite> {
    return new PersistentWrite(await this.#kv.write(), this.#createHash, this.#onCollected);
  }

  withRead<R>(fn: (read: PersistentDagRead) => R | Promise<R>): Promise<R> {
    return withTransaction(() => this.read(), fn);
  }

  withWrite<R>(fn: (write: PersistentDagWrite) => R | Promise<R>): Promise<R> {
    return withTransaction(() => this.write(), fn);
  }

  get closed(): boolean {
    return this.#kv.closed;
  }

  close(): Promise<void> {
    return this.#kv.close();
  }
}

class PersistentRead implements PersistentDagRead {
  protected readonly kv: KvRead;
  readonly #onChunkRead: ((hash: Hash) => void) | undefined;

  constructor(kv: KvRead, onChunkRead?: (hash: Hash) => void) {
    this.kv = kv;
    this.#onChunkRead = onChunkRead;
  }

  hasChunk(hash: Hash): Promise<boolean> {
    return this.kv.has(chunkDataKey(hash));
  }

  async getChunk(hash: Hash, hint?: ChunkHint): Promise<Chunk | undefined> {
    if (hint?.noRefs === true || hint?.refsOf !== undefined) {
      const data = await this.kv.get(chunkDataKey(hash));
      if (data === undefined) return undefined;
      this.#onChunkRead?.(hash);
      return { hash, data, refs: hint.refsOf === undefined ? [] : hint.refsOf(data, hash) };
    }
    const [data, refs] = await Promise.all([this.kv.get(chunkDataKey(hash)), this.storedRefs(hash)]);
    if (data === undefined) return undefined;
    this.#onChunkRead?.(hash);
    return { hash, data, refs };
  }

  async mustGetChunk(hash: Hash, hint?: ChunkHint): Promise<Chunk> {
    const chunk = await this.getChunk(hash, hint);
    if (chunk === undefined) throw new ChunkNotFoundError(hash);
    return chunk;
  }

  async getHead(name: string): Promise<Hash | undefined> {
    const key = headKey(name);
    const value = await this.kv.get(key);
    if (value === undefined || typeof value === 'string') return value;
    throw new CorruptedStorageError(key, 'a head must be a hash string');
  }

  getMeta(name: string): Promise<ReadonlyJSONValue | undefined> {
    return this.kv.get(metaKey(name));
  }

  async prefetchMeta(prefix: string): Promise<void> {
    const kv = this.kv as Partial<KvWrite>;
    await kv.prefetch?.(metaKey(prefix));
  }

  release(): void {
    this.kv.release();
  }

  protected async storedRefs(hash: Hash): Promise<readonly Hash[]> {
    const key = chunkRefsKey(hash);
    const refs = await this.kv.get(key);
    if (refs === undefined) return [];
    if (!Array.isArray(refs) || !refs.every((r) => typeof r === 'string')) {
      throw new CorruptedStorageError(key, 'refs must be a list of hashes');
    }
    return refs as readonly Hash[];
  }

  refCount(hash: Hash): Promise<number> {
    return this.storedRefCount(hash);
  }

  protected async storedRefCount(hash: Hash): Promise<number> {
    const key = chunkRefCountKey(hash);
    const count = await this.kv.get(key);
    if (count === undefined) return 0;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > REF_COUNT_MAX) {
      throw new CorruptedStorageError(key, 'Ref counts must be an integer from 0 to 65535');
    }
    return count;
  }
}

/** Writes awaited together in a commit. */
const WRITE_BATCH = 1024;

class PersistentWrite extends PersistentRead implements PersistentDagWrite {
  declare protected readonly kv: KvWrite;
  readonly #createHash: CreateHash;
  readonly #newChunks = new Map<Hash, Chunk>();
  /** New chunks known not to be stored (their count is 0). */
  readonly #unstored = new Set<Hash>();
  /** Heads set or removed in this transaction: name → new target. */
  readonly #heads = new Map<string, Hash | undefined>();
  readonly #onCollected: ((hash: Hash) => void) | undefined;

  constructor(kv: KvWrite, createHash: CreateHash, onCollected: ((hash: Hash) => void) | undefined) {
    super(kv);
    this.#createHash = createHash;
    this.#onCollected = onCollected;
  }

  createChunk<D extends ReadonlyJSONValue>(data: D, refs: readonly Hash[]): Chunk<D> {
    return { hash: this.#createHash.next(), data, refs };
  }

  async putChunk(chunk: Chunk): Promise<void> {
    this.#newChunks.set(chunk.hash, chunk);
  }

  async putNewChunk(chunk: Chunk): Promise<void> {
    this.#newChunks.set(chunk.hash, chunk);
    this.#unstored.add(chunk.hash);
  }

  override async hasChunk(hash: Hash): Promise<boolean> {
    return this.#newChunks.has(hash) || super.hasChunk(hash);
  }

  override async getChunk(hash: Hash, hint?: ChunkHint): Promise<Chunk | undefined> {
    return this.#newChunks.get(hash) ?? super.getChunk(hash, hint);
  }

  override async getHead(name: string): Promise<Hash | undefined> {
    if (this.#heads.has(name)) return this.#heads.get(name);
    return super.getHead(name);
  }

  async setHead(name: string, hash: Hash): Promise<void> {
    this.#heads.set(name, hash);
  }

  putMeta(name: string, value: ReadonlyJSONValue): Promise<void> {
    return this.kv.put(metaKey(name), value);
  }

  delMeta(name: string): Promise<void> {
    return this.kv.del(metaKey(name));
  }

  async removeHead(name: string): Promise<void> {
    this.#heads.set(name, undefined);
  }

  headsAbsent(names: readonly string[]): void {
    this.kv.knownAbsent?.(names.map(headKey));
  }

  keepOnlyRefs(): void {
    // Stored chunks keep their refs.
  }

  async commit(): Promise<void> {
    const deltas = new Map<Hash, number>();
    const heads = [...this.#heads];
    const oldTargets = await Promise.all(heads.map(([name]) => super.getHead(name)));
    heads.forEach(([, hash], i) => {
      addDelta(deltas, oldTargets[i], -1);
      addDelta(deltas, hash, +1);
    });
    const newChunks = this.#newChunks;
    const unstored = this.#unstored;
    const known = await this.#countsOfNewChunks(deltas.keys());
    const counts = await computeRefCounts(deltas, {
      tracks: () => true,
      isNew: (hash) => newChunks.has(hash),
      count: (hash) => (unstored.has(hash) ? 0 : (known.get(hash) ?? this.storedRefCount(hash))),
      refs: (hash) => newChunks.get(hash)?.refs ?? this.storedRefs(hash),
    });

    const kv = this.kv;
    // Awaited a batch at a time: a commit of 100,000 chunks does not hold 300,000 promises at once.
    let writes: Promise<void>[] = [];
    for (const [hash, count] of counts) {
      if (writes.length >= WRITE_BATCH) {
        await Promise.all(writes);
        writes = [];
      }
      if (count < 0) throw new CorruptedStorageError(chunkRefCountKey(hash), 'a ref count dropped below 0');
      if (count > REF_COUNT_MAX) throw new RefCountOverflowError(hash, count);
      if (count === 0) {
        writes.push(kv.del(chunkDataKey(hash)), kv.del(chunkRefsKey(hash)), kv.del(chunkRefCountKey(hash)));
        continue;
      }
      writes.push(kv.put(chunkRefCountKey(hash), count));
      const chunk = newChunks.get(hash);
      if (chunk !== undefined) {
        writes.push(kv.put(chunkDataKey(hash), chunk.data));
        if (chunk.refs.length > 0) writes.push(kv.put(chunkRefsKey(hash), chunk.refs));
      }
    }
    heads.forEach(([name, hash], i) => {
      // A head left as it is stored (absent and removed, or set to its target) is not written again.
      if (hash === oldTargets[i]) return;
      writes.push(hash === undefined ? kv.del(headKey(name)) : kv.put(headKey(name), hash));
    });
    await Promise.all(writes);
    await kv.commit();
    this.#newChunks.clear();
    this.#unstored.clear();
    this.#heads.clear();
    const onCollected = this.#onCollected;
    // Only once the deletes are committed: a write that fails deletes nothing.
    if (onCollected !== undefined) for (const [hash, count] of counts) if (count === 0) onCollected(hash);
  }

  /**
   * The stored counts of the new chunks and of `also`, read in one round: the
   * increments then need no read at all, where a chain of new commits would
   * otherwise cost a round per commit. Chunks put as new are left out (their
   * count is 0, see commit): a store of 100,000 new commits makes no list,
   * set or map of them here.
   */
  async #countsOfNewChunks(also: Iterable<Hash>): Promise<Map<Hash, number>> {
    const unstored = this.#unstored;
    const newChunks = this.#newChunks;
    const hashes: Hash[] = [];
    for (const hash of newChunks.keys()) if (!unstored.has(hash)) hashes.push(hash);
    for (const hash of also) if (!unstored.has(hash) && !newChunks.has(hash)) hashes.push(hash);
    const counts = await Promise.all(hashes.map((hash) => this.storedRefCount(hash)));
    return new Map(hashes.map((hash, i) => [hash, counts[i]!]));
  }
}
