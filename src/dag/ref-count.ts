/**
 * Reference counting shared by the persistent and the in-memory dag.
 *
 * A chunk contributes its refs (holds its children) exactly while its own
 * count is above zero. Given the count changes of one commit (heads moved,
 * chunks added), this follows every 0 ↔ positive transition down the graph
 * and returns the final count of each chunk it touched. Chunks whose final
 * count is 0 are garbage. The graph is acyclic (a chunk only refers to chunks
 * that existed before it), so this terminates.
 */
import type { Hash } from './types';

export interface RefCountSource {
  /** Whether this dag keeps a count for the chunk (the memory dag ignores persisted chunks). */
  tracks(hash: Hash): boolean;
  /** The count before this commit. */
  count(hash: Hash): number | Promise<number>;
  refs(hash: Hash): readonly Hash[] | Promise<readonly Hash[]>;
}

export async function computeRefCounts(
  deltas: ReadonlyMap<Hash, number>,
  source: RefCountSource,
): Promise<Map<Hash, number>> {
  const counts = new Map<Hash, number>();
  const work: [Hash, number][] = [];
  for (const [hash, delta] of deltas) if (delta !== 0) work.push([hash, delta]);
  while (work.length > 0) {
    const [hash, delta] = work.pop()!;
    if (!source.tracks(hash)) continue;
    let before = counts.get(hash);
    if (before === undefined) before = await source.count(hash);
    const after = before + delta;
    counts.set(hash, after);
    // Counts may dip below zero while the work list is half done; only the final ones must not.
    if (before > 0 !== after > 0) {
      const childDelta = after > 0 ? 1 : -1;
      for (const ref of await source.refs(hash)) work.push([ref, childDelta]);
    }
  }
  return counts;
}

/** Adds `delta` to the count of a head's old or new target. */
export function addDelta(deltas: Map<Hash, number>, hash: Hash | undefined, delta: number): void {
  if (hash === undefined) return;
  deltas.set(hash, (deltas.get(hash) ?? 0) + delta);
}
