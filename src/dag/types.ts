/**
 * The content-addressed chunk graph the store engine is built on.
 * Contract between dag/ (implements it) and btree/, db/, sync/, persist/ (use it).
 */
import type { ReadonlyJSONValue } from '../../protocol/json';

export type Hash = string;

/** An immutable chunk: its data and the hashes of the chunks it refers to. */
export interface Chunk<D extends ReadonlyJSONValue = ReadonlyJSONValue> {
  readonly hash: Hash;
  readonly data: D;
  readonly refs: readonly Hash[];
}

/** What a reader knows of a chunk before reading it. */
export interface ChunkHint {
  /**
   * The chunk refers to nothing (e.g. a B+tree leaf): only its data is read
   * from storage (its refs are not stored). Wrong for a chunk with refs.
   */
  readonly noRefs?: boolean;
  /**
   * The chunk's refs follow from its data (e.g. a B+tree node's children):
   * only its data is read from storage, and its refs are these. Must give
   * exactly the refs it was stored with.
   */
  readonly refsOf?: (data: ReadonlyJSONValue, hash: Hash) => readonly Hash[];
}

export interface DagRead {
  hasChunk(hash: Hash): Promise<boolean>;
  getChunk(hash: Hash, hint?: ChunkHint): Promise<Chunk | undefined>;
  /** Like getChunk, but a missing chunk is a typed ChunkNotFoundError. */
  mustGetChunk(hash: Hash, hint?: ChunkHint): Promise<Chunk>;
  /** The chunk when it is at hand (in memory), without waiting; undefined otherwise (then getChunk). */
  peekChunk?(hash: Hash): Chunk | undefined;
  getHead(name: string): Promise<Hash | undefined>;
  release(): void;
}

export interface DagWrite extends DagRead {
  /** Creates (does not store) a chunk with a fresh hash. */
  createChunk<D extends ReadonlyJSONValue>(data: D, refs: readonly Hash[]): Chunk<D>;
  putChunk(chunk: Chunk): Promise<void>;
  /** putChunk at once, where a store keeps new chunks in memory until its commit. */
  putChunkNow?(chunk: Chunk): void;
  setHead(name: string, hash: Hash): Promise<void>;
  removeHead(name: string): Promise<void>;
  /**
   * From this commit on, a chunk that lives only in memory (and that no head
   * points at) holds `refs` of its refs and no more (a local commit below the head lets go of its
   * trees); what it let go of is collected once nothing else holds it.
   * Stored chunks keep theirs.
   */
  keepOnlyRefs(hash: Hash, refs: readonly Hash[]): void;
  /** Applies the writes atomically; ref counts are updated and unreferenced chunks deleted. */
  commit(): Promise<void>;
}

export interface DagStore {
  read(): Promise<DagRead>;
  write(): Promise<DagWrite>;
  withRead<R>(fn: (read: DagRead) => R | Promise<R>): Promise<R>;
  withWrite<R>(fn: (write: DagWrite) => R | Promise<R>): Promise<R>;
  close(): Promise<void>;
}
