/**
 * Reference counting shared by the persistent and the in-memory dag.
 *
 * A chunk holds its children exactly while its own count is above zero.
 * Given the count changes of one commit (heads moved), this settles every
 * count as if all increments were applied before any decrement: first the new
 * chunks that gain a reference take hold of their children, then the chunks
 * whose final count is 0 let go of theirs. A chunk whose count ends above 0
 * is never walked, so a head moving to a child of its old target costs what
 * changed, not the length of the chain behind it. Returns the final count of
 * every chunk whose count changed; chunks whose final count is 0 are garbage.
 * The graph is acyclic (a chunk only refers to chunks that existed before
 * it), so this terminates.
 */
import type { Hash } from './types';

export interface RefCountSource {
  /** Whether this dag keeps a count for the chunk (the memory dag ignores persisted chunks). */
  tracks(hash: Hash): boolean;
  /** Whether the chunk was put in this commit: the only tracked chunks whose count may be 0 before it. */
  isNew(hash: Hash): boolean;
  /** The count before this commit. */
  count(hash: Hash): number | Promise<number>;
  refs(hash: Hash): readonly Hash[] | Promise<readonly Hash[]>;
}

export async function computeRefCounts(
  deltas: ReadonlyMap<Hash, number>,
  source: RefCountSource,
): Promise<Map<Hash, number>> {
  /** Change of each touched chunk's count so far. */
  const net = new Map<Hash, number>();
  /** Counts before the commit, read only where needed. */
  const before = new Map<Hash, number>();
  /** New chunks looked at in the increment phase (born: those whose count was 0). */
  const checked = new Set<Hash>();
  const born = new Set<Hash>();
  const dead = new Set<Hash>();
  const untracked = new Set<Hash>();
  // Awaits only what is pending: a memory dag runs this in one synchronous step.
  let pending: Promise<unknown> | undefined;
  let lists: (readonly Hash[])[] = [];

  let grow: Hash[] = [];
  for (const [hash, delta] of deltas) {
    if (delta === 0 || !source.tracks(hash)) continue;
    net.set(hash, (net.get(hash) ?? 0) + delta);
    if (delta > 0 && source.isNew(hash) && !checked.has(hash)) {
      checked.add(hash);
      grow.push(hash);
    }
  }
  // Increments, one graph level per round (a slow store answers a round's reads in parallel).
  while (grow.length > 0) {
    if ((pending = loadCounts(grow, source, before))) await pending;
    const births = grow.filter((h) => before.get(h) === 0);
    for (const h of births) born.add(h);
    if ((pending = loadRefs(births, source, (lists = [])))) await pending;
    grow = [];
    for (const refs of lists) {
      for (const r of refs) {
        const n = net.get(r);
        if (n !== undefined) {
          net.set(r, n + 1);
          continue;
        }
        // First sight of r: whether it is counted here, and whether it may be at 0, are asked once.
        if (untracked.has(r)) continue;
        if (!source.tracks(r)) {
          untracked.add(r);
          continue;
        }
        net.set(r, 1);
        if (!checked.has(r) && source.isNew(r)) {
          checked.add(r);
          grow.push(r);
        }
      }
    }
  }

  // Decrements: only a chunk whose final count is 0 is followed.
  let shrink = new Set<Hash>();
  for (const [hash, delta] of net) if (delta < 0) shrink.add(hash);
  while (shrink.size > 0) {
    if ((pending = loadCounts(shrink, source, before))) await pending;
    const deaths: Hash[] = [];
    for (const h of shrink) {
      const was = before.get(h)!;
      if (!dead.has(h) && (was > 0 || born.has(h)) && was + net.get(h)! === 0) {
        dead.add(h);
        deaths.push(h);
      }
    }
    if ((pending = loadRefs(deaths, source, (lists = [])))) await pending;
    shrink = new Set();
    for (const refs of lists) {
      for (const r of refs) {
        const n = net.get(r);
        if (n !== undefined) net.set(r, n - 1);
        else if (untracked.has(r)) continue;
        else if (source.tracks(r)) net.set(r, -1);
        else {
          untracked.add(r);
          continue;
        }
        shrink.add(r);
      }
    }
  }

  const changed: Hash[] = [];
  for (const [hash, delta] of net) if (delta !== 0 || dead.has(hash)) changed.push(hash);
  if ((pending = loadCounts(changed, source, before))) await pending;
  const counts = new Map<Hash, number>();
  for (const hash of changed) counts.set(hash, before.get(hash)! + net.get(hash)!);
  return counts;
}

/** Reads the counts not read yet; returns a promise only when some answer is one. */
function loadCounts(hashes: Iterable<Hash>, source: RefCountSource, into: Map<Hash, number>): Promise<unknown> | undefined {
  let pending: Promise<void>[] | undefined;
  for (const hash of hashes) {
    if (into.has(hash)) continue;
    const count = source.count(hash);
    if (typeof count === 'number') into.set(hash, count);
    else (pending ??= []).push(count.then((n) => void into.set(hash, n)));
  }
  return pending === undefined ? undefined : Promise.all(pending);
}

/** Appends the refs of each chunk to `into` (in any order); returns a promise only when some answer is one. */
function loadRefs(hashes: readonly Hash[], source: RefCountSource, into: (readonly Hash[])[]): Promise<unknown> | undefined {
  let pending: Promise<void>[] | undefined;
  for (const hash of hashes) {
    const refs = source.refs(hash);
    if (refs instanceof Promise) (pending ??= []).push(refs.then((r) => void into.push(r)));
    else into.push(refs as readonly Hash[]);
  }
  return pending === undefined ? undefined : Promise.all(pending);
}

/** Adds `delta` to the count of a head's old or new target. */
export function addDelta(deltas: Map<Hash, number>, hash: Hash | undefined, delta: number): void {
  if (hash === undefined) return;
  deltas.set(hash, (deltas.get(hash) ?? 0) + delta);
}
