import { estimateJSONSize } from './json-size';
import type { Chunk } from './types';

const CHUNK_OVERHEAD_BYTES = 64;
const REF_OVERHEAD_BYTES = 3;

/** Estimated memory held by a chunk, for the cache cap. */
export function estimateChunkSize(chunk: Chunk): number {
  let size = CHUNK_OVERHEAD_BYTES + estimateJSONSize(chunk.data);
  for (const ref of chunk.refs) size += ref.length + REF_OVERHEAD_BYTES;
  return size;
}
