/**
 * An LRU cache of persisted chunks, capped by their estimated size. A chunk
 * bigger than the whole cap is not kept.
 */
import type { Chunk, Hash } from './types';

interface Cached {
  readonly chunk: Chunk;
  readonly size: number;
}

export class ChunkCache {
  readonly #maxBytes: number;
  /** Map iteration order is insertion order: the first entry is the least recently used. */
  readonly #entries = new Map<Hash, Cached>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
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
    this.delete(chunk.hash);
    if (size > this.#maxBytes) return;
    this.#entries.set(chunk.hash, { chunk, size });
    this.#bytes += size;
    if (this.#bytes > this.#maxBytes) this.#evict();
  }

  delete(hash: Hash): void {
    const cached = this.#entries.get(hash);
    if (cached === undefined) return;
    this.#entries.delete(hash);
    this.#bytes -= cached.size;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  #evict(): void {
    for (const [hash, cached] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) return;
      this.#entries.delete(hash);
      this.#bytes -= cached.size;
    }
  }
}
