/**
 * Where the persistent dag keeps things in the kv store. A chunk's data, its
 * refs and its ref count live under separate keys so that a count update
 * rewrites a few bytes, and collecting a leaf reads no leaf data.
 */
import type { Hash } from './types';

export const chunkDataKey = (hash: Hash): string => `c/${hash}/d`;
/** Only present when the chunk has refs. */
export const chunkRefsKey = (hash: Hash): string => `c/${hash}/r`;
export const chunkRefCountKey = (hash: Hash): string => `c/${hash}/n`;
export const headKey = (name: string): string => `h/${name}`;
/** Records kept beside the chunks (client and client-group records), written in the same transactions. */
export const metaKey = (name: string): string => `m/${name}`;
