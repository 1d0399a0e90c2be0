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
  // Rounds, one graph level at a time: a new node and the old one it replaces
  // usually sit at the same depth, so the +1 and -1 they give the children
  // they share cancel out in the same round (see addChildDeltas).
  let round = new Map<Hash, number>(deltas);
  while (round.size > 0) {
    // Stored counts and refs of a round are read together, so a slow store answers them in parallel.
    const live: [Hash, number][] = [];
    const loading: Promise<void>[] = [];
    for (const [hash, delta] of round) {
      if (delta === 0 || !source.tracks(hash)) continue;
      live.push([hash, delta]);
      if (counts.has(hash)) continue;
      const c = source.count(hash);
      if (typeof c === 'number') counts.set(hash, c);
      else loading.push(c.then((n) => void counts.set(hash, n)));
    }
    if (loading.length > 0) await Promise.all(loading);

    const flips: [Hash, boolean][] = [];
    for (const [hash, delta] of live) {
      const before = counts.get(hash)!;
      const after = before + delta;
      counts.set(hash, after);
      // Counts may dip below zero while rounds are pending; only the final ones must not.
      if (before > 0 !== after > 0) flips.push([hash, after > 0]);
    }
    const refs = await Promise.all(flips.map(([hash]) => source.refs(hash)));
    const gained: (readonly Hash[])[] = [];
    const lost: (readonly Hash[])[] = [];
    for (let i = 0; i < flips.length; i++) {
      if (refs[i]!.length > 0) (flips[i]![1] ? gained : lost).push(refs[i]!);
    }
    round = childDeltas(gained, lost);
  }
  return counts;
}

/**
 * The count changes of the children of chunks that gained or lost their
 * last reference. A gained and a lost ref list are paired up: a node and its
 * replacement share most children in the same order, so their common prefix
 * and suffix cancel out without touching the map.
 */
function childDeltas(gained: readonly (readonly Hash[])[], lost: readonly (readonly Hash[])[]): Map<Hash, number> {
  const next = new Map<Hash, number>();
  const add = (refs: readonly Hash[], from: number, to: number, delta: number) => {
    for (let i = from; i < to; i++) next.set(refs[i]!, (next.get(refs[i]!) ?? 0) + delta);
  };
  const pairs = Math.min(gained.length, lost.length);
  for (let p = 0; p < pairs; p++) {
    const g = gained[p]!;
    const l = lost[p]!;
    const n = Math.min(g.length, l.length);
    let prefix = 0;
    while (prefix < n && g[prefix] === l[prefix]) prefix++;
    let suffix = 0;
    while (suffix < n - prefix && g[g.length - 1 - suffix] === l[l.length - 1 - suffix]) suffix++;
    add(g, prefix, g.length - suffix, +1);
    add(l, prefix, l.length - suffix, -1);
  }
  for (let p = pairs; p < gained.length; p++) add(gained[p]!, 0, gained[p]!.length, +1);
  for (let p = pairs; p < lost.length; p++) add(lost[p]!, 0, lost[p]!.length, -1);
  return next;
}

/** Adds `delta` to the count of a head's old or new target. */
export function addDelta(deltas: Map<Hash, number>, hash: Hash | undefined, delta: number): void {
  if (hash === undefined) return;
  deltas.set(hash, (deltas.get(hash) ?? 0) + delta);
}
