/**
 * An LRU cache of persisted chunks, capped by their estimated size. A chunk
 * bigger than the whole cap is not kept.
 *
 * A chunk may be put before its size is known (putUnsized): it is sized, and
 * the cap enforced, before anything reads the cache's accounting or puts
 * another chunk, so the bytes counted and the chunks kept are those eager
 * sizing would give at every point where they are seen. Until then it is
 * served like any other (one bigger than the whole cap too: it goes once sized).
 */
import type { Chunk, Hash } from './types';

interface Cached {
  readonly chunk: Chunk;
  /** 0 while the chunk waits to be sized (in #unsized). */
  size: number;
}

export class ChunkCache {
  readonly #maxBytes: number;
  /** Map iteration order is insertion order: the first entry is the least recently used. */
  readonly #entries = new Map<Hash, Cached>();
  /** Chunks in #entries not sized yet, with how to size them. */
  readonly #unsized = new Map<Hash, (chunk: Chunk) => number>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get bytes(): number {
    this.#settle();
    return this.#bytes;
  }

  get size(): number {
    this.#settle();
    return this.#entries.size;
  }

  get(hash: Hash): Chunk | undefined {
    const cached = this.#entries.get(hash);
    if (cached === undefined) return undefined;
    this.#entries.delete(hash);
    this.#entries.set(hash, cached);
    return cached.chunk;
  }

  has(hash: Hash): boolean {
    return this.#entries.has(hash);
  }

  put(chunk: Chunk, size: number): void {
    this.#settle();
    this.delete(chunk.hash);
    if (size > this.#maxBytes) return;
    this.#entries.set(chunk.hash, { chunk, size });
    this.#bytes += size;
    if (this.#bytes > this.#maxBytes) this.#evict();
  }

  /**
   * Puts `chunk` as the most recently used, sized by `sizeOf` only when the
   * accounting is next needed (e.g. chunks preloaded while a store opens:
   * sizing them is not on the way to its first read).
   */
  putUnsized(chunk: Chunk, sizeOf: (chunk: Chunk) => number): void {
    this.delete(chunk.hash);
    this.#entries.set(chunk.hash, { chunk, size: 0 });
    this.#unsized.set(chunk.hash, sizeOf);
  }

  delete(hash: Hash): void {
    const cached = this.#entries.get(hash);
    if (cached === undefined) return;
    this.#entries.delete(hash);
    this.#unsized.delete(hash);
    this.#bytes -= cached.size;
  }

  clear(): void {
    this.#entries.clear();
    this.#unsized.clear();
    this.#bytes = 0;
  }

  /** Sizes the chunks put unsized (dropping any bigger than the cap) and enforces the cap. */
  #settle(): void {
    if (this.#unsized.size === 0) return;
    for (const [hash, sizeOf] of this.#unsized) {
      const cached = this.#entries.get(hash)!;
      const size = sizeOf(cached.chunk);
      if (size > this.#maxBytes) {
        this.#entries.delete(hash);
        continue;
      }
      cached.size = size;
      this.#bytes += size;
    }
    this.#unsized.clear();
    if (this.#bytes > this.#maxBytes) this.#evict();
  }

  #evict(): void {
    for (const [hash, cached] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) return;
      this.#entries.delete(hash);
      this.#bytes -= cached.size;
    }
  }
}
