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

/** What one commit does to one tracked chunk. */
interface Slot {
  readonly hash: Hash;
  /** Change of its count so far. */
  delta: number;
  /** Its count before the commit, once read. */
  before: number | undefined;
  /** Whether it was asked if it is new. */
  checked: boolean;
  /** New, and gained its first reference: it holds its children. */
  born: boolean;
  /** Its final count is 0: it let go of its children. */
  dead: boolean;
  /** The last decrement round that queued it. */
  round: number;
}

export async function computeRefCounts(
  deltas: ReadonlyMap<Hash, number>,
  source: RefCountSource,
): Promise<Map<Hash, number>> {
  const slots = new Map<Hash, Slot>();
  const untracked = new Set<Hash>();
  // Whether a chunk is counted here is asked once per chunk, not once per reference to it.
  const slotOf = (hash: Hash): Slot | undefined => {
    let slot = slots.get(hash);
    if (slot !== undefined || untracked.has(hash)) return slot;
    if (!source.tracks(hash)) {
      untracked.add(hash);
      return undefined;
    }
    slot = { hash, delta: 0, before: undefined, checked: false, born: false, dead: false, round: 0 };
    slots.set(hash, slot);
    return slot;
  };
  // Awaits only what is pending: a memory dag runs this in one synchronous step.
  let pending: Promise<unknown> | undefined;
  // A round's lists are emptied and filled again, not made anew: a chain of new commits takes a round per commit.
  const lists: (readonly Hash[])[] = [];
  const births: Slot[] = [];

  let grow: Slot[] = [];
  let next: Slot[] = [];
  for (const [hash, delta] of deltas) {
    const slot = delta === 0 ? undefined : slotOf(hash);
    if (slot === undefined) continue;
    slot.delta += delta;
    if (delta > 0 && !slot.checked) {
      slot.checked = true;
      if (source.isNew(hash)) grow.push(slot);
    }
  }
  // Increments, one graph level per round (a slow store answers a round's reads in parallel).
  while (grow.length > 0) {
    if ((pending = loadCounts(grow, source))) await pending;
    births.length = 0;
    for (const slot of grow) {
      if (slot.before !== 0) continue;
      slot.born = true;
      births.push(slot);
    }
    lists.length = 0;
    if ((pending = loadRefs(births, source, lists))) await pending;
    const done = grow;
    grow = next;
    next = done;
    grow.length = 0;
    for (const refs of lists) {
      for (const r of refs) {
        const slot = slotOf(r);
        if (slot === undefined) continue;
        slot.delta++;
        if (!slot.checked) {
          slot.checked = true;
          if (source.isNew(r)) grow.push(slot);
        }
      }
    }
  }

  // Decrements: only a chunk whose final count is 0 is followed.
  let shrink: Slot[] = next;
  shrink.length = 0;
  next = grow;
  const deaths = births;
  for (const slot of slots.values()) if (slot.delta < 0) shrink.push(slot);
  for (let round = 1; shrink.length > 0; round++) {
    if ((pending = loadCounts(shrink, source))) await pending;
    deaths.length = 0;
    for (const slot of shrink) {
      const was = slot.before!;
      if (!slot.dead && (was > 0 || slot.born) && was + slot.delta === 0) {
        slot.dead = true;
        deaths.push(slot);
      }
    }
    lists.length = 0;
    if ((pending = loadRefs(deaths, source, lists))) await pending;
    const done = shrink;
    shrink = next;
    next = done;
    shrink.length = 0;
    for (const refs of lists) {
      for (const r of refs) {
        const slot = slotOf(r);
        if (slot === undefined) continue;
        slot.delta--;
        if (slot.round !== round) {
          slot.round = round;
          shrink.push(slot);
        }
      }
    }
  }

  const changed: Slot[] = [];
  for (const slot of slots.values()) if (slot.delta !== 0 || slot.dead) changed.push(slot);
  if ((pending = loadCounts(changed, source))) await pending;
  const counts = new Map<Hash, number>();
  for (const slot of changed) counts.set(slot.hash, slot.before! + slot.delta);
  return counts;
}

/** Reads the counts not read yet; returns a promise only when some answer is one. */
function loadCounts(slots: readonly Slot[], source: RefCountSource): Promise<unknown> | undefined {
  let pending: Promise<void>[] | undefined;
  for (const slot of slots) {
    if (slot.before !== undefined) continue;
    const count = source.count(slot.hash);
    if (typeof count === 'number') slot.before = count;
    else (pending ??= []).push(count.then((n) => void (slot.before = n)));
  }
  return pending === undefined ? undefined : Promise.all(pending);
}

/** Appends the refs of each chunk to `into` (in any order); returns a promise only when some answer is one. */
function loadRefs(slots: readonly Slot[], source: RefCountSource, into: (readonly Hash[])[]): Promise<unknown> | undefined {
  let pending: Promise<void>[] | undefined;
  for (const slot of slots) {
    const refs = source.refs(slot.hash);
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
