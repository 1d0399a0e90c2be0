/** Typed failures of the chunk graph. */
import type { Hash } from './types';

export class ChunkNotFoundError extends Error {
  readonly kind = 'ChunkNotFound';
  override readonly name = 'ChunkNotFoundError';
  readonly hash: Hash;
  constructor(hash: Hash) {
    super(`Chunk not found: ${hash}`);
    this.hash = hash;
  }
}

/** Something read back from storage is not what dag/ or btree/ wrote. */
export class CorruptedStorageError extends Error {
  readonly kind = 'CorruptedStorage';
  override readonly name = 'CorruptedStorageError';
  readonly key: string;
  constructor(key: string, message: string) {
    super(`Corrupted storage at ${key}: ${message}`);
    this.key = key;
  }
}

/** A chunk would be referenced more often than a stored count can say. */
export class RefCountOverflowError extends Error {
  readonly kind = 'RefCountOverflow';
  override readonly name = 'RefCountOverflowError';
  readonly hash: Hash;
  constructor(hash: Hash, count: number) {
    super(`Ref count of chunk ${hash} would be ${count}; Ref counts must be an integer from 0 to 65535`);
    this.hash = hash;
  }
}
