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
  const before = new Map<Hash, number>();
  const born = new Set<Hash>();
  const dead = new Set<Hash>();
  const add = (hash: Hash, delta: number): boolean => {
    if (!source.tracks(hash)) return false;
    net.set(hash, (net.get(hash) ?? 0) + delta);
    return true;
  };
  const countsOf = (hashes: Iterable<Hash>): Promise<unknown> | undefined => {
    const missing: Hash[] = [];
    for (const h of hashes) if (!before.has(h)) missing.push(h);
    return load(missing, (h) => source.count(h), before);
  };
  let refs = new Map<Hash, readonly Hash[]>();
  const refsOf = (hashes: readonly Hash[]): Promise<unknown> | undefined => {
    refs = new Map();
    return load(hashes, (h) => source.refs(h), refs);
  };
  // Awaits only what is pending: a memory dag runs this in one synchronous step.
  let pending: Promise<unknown> | undefined;

  for (const [hash, delta] of deltas) if (delta !== 0) add(hash, delta);

  // Increments, one graph level per round (a slow store answers a round's reads in parallel).
  let grow = new Set<Hash>();
  for (const [hash, delta] of net) if (delta > 0) grow.add(hash);
  while (grow.size > 0) {
    const candidates = [...grow].filter((h) => !before.has(h) && source.isNew(h));
    if ((pending = countsOf(candidates))) await pending;
    const births = candidates.filter((h) => before.get(h) === 0);
    for (const h of births) born.add(h);
    grow = new Set();
    if ((pending = refsOf(births))) await pending;
    for (const list of refs.values()) for (const r of list) if (add(r, +1)) grow.add(r);
  }

  // Decrements: only a chunk whose final count is 0 is followed.
  let shrink = new Set<Hash>();
  for (const [hash, delta] of net) if (delta < 0) shrink.add(hash);
  while (shrink.size > 0) {
    if ((pending = countsOf(shrink))) await pending;
    const deaths: Hash[] = [];
    for (const h of shrink) {
      const was = before.get(h)!;
      if (!dead.has(h) && (was > 0 || born.has(h)) && was + net.get(h)! === 0) deaths.push(h);
    }
    for (const h of deaths) dead.add(h);
    shrink = new Set();
    if ((pending = refsOf(deaths))) await pending;
    for (const list of refs.values()) for (const r of list) if (add(r, -1)) shrink.add(r);
  }

  const changed: Hash[] = [];
  for (const [hash, delta] of net) if (delta !== 0 || dead.has(hash)) changed.push(hash);
  if ((pending = countsOf(changed))) await pending;
  const counts = new Map<Hash, number>();
  for (const hash of changed) counts.set(hash, before.get(hash)! + net.get(hash)!);
  return counts;
}

/** Fills `into` from `get`; returns a promise only when some answer is one, so a memory dag stays synchronous. */
function load<V>(hashes: readonly Hash[], get: (hash: Hash) => V | Promise<V>, into: Map<Hash, V>): Promise<unknown> | undefined {
  let pending: Promise<void>[] | undefined;
  for (const hash of hashes) {
    const value = get(hash);
    if (value instanceof Promise) (pending ??= []).push(value.then((v: V) => void into.set(hash, v)));
    else into.set(hash, value);
  }
  return pending === undefined ? undefined : Promise.all(pending);
}

/** Adds `delta` to the count of a head's old or new target. */
export function addDelta(deltas: Map<Hash, number>, hash: Hash | undefined, delta: number): void {
  if (hash === undefined) return;
  deltas.set(hash, (deltas.get(hash) ?? 0) + delta);
}
