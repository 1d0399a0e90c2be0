/**
 * The chain a client group's head stands on, kept beside the group record:
 * its snapshot and local commits, oldest first. A client opening the store
 * reads them all at once (one round of parallel reads) instead of walking
 * from commit to commit, one read per pending mutation. Only trusted while
 * its head is the group's head.
 */
import type { PersistentDagRead, PersistentDagWrite } from '../dag/store';
import type { Hash } from '../dag/types';
import type { ReadonlyJSONValue } from '../../protocol/json';

export interface GroupChain {
  /** The group head this chain ends in. */
  readonly head: Hash;
  /** The snapshot first, then the local commits, the head last. */
  readonly commits: readonly Hash[];
  /** The root of the head's map. */
  readonly root: Hash;
  /**
   * The root's children, when it has at most PRELOADED_ROOT_CHILDREN_MAX:
   * a client opening the store reads them with the chain (absent: it reads
   * the root first).
   */
  readonly top?: readonly Hash[];
}

/**
 * A root with at most this many children has them read while a client joins
 * (a constant number of chunks, whatever the size of the store): the first
 * read then needs only the levels below them.
 */
export const PRELOADED_ROOT_CHILDREN_MAX = 8;

/** The names of the chain records start with it. */
export const CHAIN_RECORDS_PREFIX = 'chain/';
const chainKey = (clientGroupID: string) => `${CHAIN_RECORDS_PREFIX}${clientGroupID}`;

/**
 * A chain with more commits is stored in parts of this many, each a record of
 * its own, beside a record of the part ends and the last commits: a store of a
 * long offline backlog rewrites the parts that changed (usually none) instead
 * of every hash of the chain (which made a day offline write gigabytes).
 */
export const CHAIN_PART_COMMITS = 256;
/** Part `i` of a chain: a random group id has no '/', so no group's own record has such a name. */
const partKey = (clientGroupID: string, i: number | '') => `${chainKey(clientGroupID)}/${i}`;

const isHashList = (value: unknown): value is Hash[] => Array.isArray(value) && value.every((h) => typeof h === 'string');

/** The last commit of each part of a chain record stored in parts; undefined for a record of another shape. */
function partEnds(value: unknown): Hash[] | undefined {
  const parts = (value as { parts?: unknown } | undefined)?.parts;
  return isHashList(parts) ? parts : undefined;
}

/** A chain record's value, or undefined when it is not one (a top level of another shape, or too wide, is left out). */
function parseGroupChain(value: unknown): GroupChain | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { head, commits, root, top } = value as Record<string, unknown>;
  if (typeof head !== 'string' || typeof root !== 'string' || !isHashList(commits) || commits.at(-1) !== head) return undefined;
  const topFits = isHashList(top) && top.length <= PRELOADED_ROOT_CHILDREN_MAX;
  return { head, commits, root, ...(topFits ? { top } : {}) };
}

/**
 * The chain recorded for the group's head (check that it ends in the head).
 * A record in parts is read with its parts (at once: the join prefetches every
 * chain record); a part missing or not ending where the record says is no chain.
 */
export async function readGroupChain(read: PersistentDagRead, clientGroupID: string): Promise<GroupChain | undefined> {
  const value = await read.getMeta(chainKey(clientGroupID));
  const ends = partEnds(value);
  if (ends === undefined) return parseGroupChain(value);
  const tail = (value as { tail?: unknown }).tail;
  const parts = await Promise.all(ends.map((_, i) => read.getMeta(partKey(clientGroupID, i))));
  if (!isHashList(tail) || !parts.every((part, i) => isHashList(part) && part.length === CHAIN_PART_COMMITS && part.at(-1) === ends[i])) return undefined;
  return parseGroupChain({ ...(value as object), commits: [...(parts as Hash[][]).flat(), ...tail] });
}

/** The part ends of the group's chain record (none when it is not stored in parts): the next write of the chain rewrites only the parts that changed. */
export async function readChainPartEnds(read: PersistentDagRead, clientGroupID: string): Promise<readonly Hash[]> {
  return partEnds(await read.getMeta(chainKey(clientGroupID))) ?? [];
}

/**
 * A copy of the chain record of the group a client of this store last
 * joined or stored, kept where a page can read it before the store is open
 * (localStorage): the join asks for its chunks in its first round of reads,
 * beside the records. Only a guess: the join uses what the stored chain
 * record names (a read the guess already made is answered from the
 * transaction's memory), so a stale copy costs wasted reads, never a wrong
 * start.
 */
export interface ChainHint {
  readonly chain: HintedChain | undefined;
  /** Keeps `chain` for the next start (undefined, or a chain too long to be worth it: forgets it). */
  save(chain: HintedChain | undefined): void;
}

/**
 * A chain with the tree nodes the first read of the last start read (e.g. the
 * path to the key of an app's first query): the next join reads them too,
 * and the first read finds them in memory when it asks for the same data.
 * A node gone from the store is simply not found.
 */
export interface HintedChain extends GroupChain {
  readonly first?: readonly Hash[];
}

/** At most this many nodes of the first read are kept in a hint. */
export const HINT_FIRST_READ_MAX = 8;

/** A chain with more commits is not kept as a hint (its reads would cost more than the round they save). */
export const CHAIN_HINT_COMMITS_MAX = 32;

const chainHintKey = (storeName: string) => `roomsync-chain-hint/${storeName}`;

/** This origin's localStorage; undefined where there is none (a worker, Node) or it is blocked (null where storage is disabled, or a throwing getter). */
function localStorageOrNone(): Storage | undefined {
  try {
    return (globalThis as { localStorage?: Storage | null }).localStorage ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * A hint read back: a chain record's shape with at most CHAIN_HINT_COMMITS_MAX
 * commits and at most HINT_FIRST_READ_MAX first-read nodes (a longer list is
 * not one we wrote: the hint, or its nodes, are left out).
 */
function parseChainHint(value: unknown): HintedChain | undefined {
  const chain = parseGroupChain(value);
  if (chain === undefined || chain.commits.length > CHAIN_HINT_COMMITS_MAX) return undefined;
  const first = (value as { first?: unknown }).first;
  return isHashList(first) && first.length <= HINT_FIRST_READ_MAX ? { ...chain, first } : chain;
}

/** The hint of the store `storeName` in this origin's localStorage; undefined where there is none (a worker, Node, storage blocked). */
export function localStorageChainHint(storeName: string): ChainHint | undefined {
  const storage = localStorageOrNone();
  if (storage === undefined) return undefined;
  const key = chainHintKey(storeName);
  let chain: HintedChain | undefined;
  try {
    chain = parseChainHint(JSON.parse(storage.getItem(key) ?? 'null'));
  } catch {
    // Blocked (an opaque origin), or not a hint we wrote: none.
  }
  return {
    chain,
    save(next) {
      try {
        if (next === undefined || next.commits.length > CHAIN_HINT_COMMITS_MAX) storage.removeItem(key);
        else storage.setItem(key, JSON.stringify(next));
      } catch {
        // Full or blocked: the next start reads the records first, as without a hint.
      }
    },
  };
}

/** Removes the hint of the store `storeName` (the store is deleted). */
export function forgetChainHint(storeName: string): void {
  try {
    localStorageOrNone()?.removeItem(chainHintKey(storeName));
  } catch {
    // Blocked: there is no hint to remove.
  }
}

/** Whether two chains name the same chunks. */
export function sameChain(a: GroupChain | undefined, b: GroupChain | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** `chain` as its record is read back (a top level too wide to preload is left out). */
export function storedGroupChain(chain: GroupChain): GroupChain {
  const { head, commits, root, top } = chain;
  return top !== undefined && top.length <= PRELOADED_ROOT_CHILDREN_MAX ? { head, commits, root, top } : { head, commits, root };
}

/**
 * Writes the chain record of the group (in parts when it is long: those whose
 * end is in `storedEnds`, the part ends of the record it replaces, are stored
 * already, as a commit hash stands for the chain below it); returns the chain
 * as a read of the record would (storedGroupChain).
 */
export async function writeGroupChain(write: PersistentDagWrite, clientGroupID: string, chain: GroupChain, storedEnds: readonly Hash[]): Promise<GroupChain> {
  const stored = storedGroupChain(chain);
  const { commits } = stored;
  const value: Record<string, ReadonlyJSONValue> = { head: stored.head, root: stored.root };
  if (stored.top !== undefined) value.top = [...stored.top];
  // Whole parts, and a tail of at least the head.
  const partCount = commits.length > CHAIN_PART_COMMITS ? Math.floor((commits.length - 1) / CHAIN_PART_COMMITS) : 0;
  const writes: Promise<void>[] = [];
  if (partCount === 0) value.commits = [...commits];
  else {
    const ends: Hash[] = [];
    for (let i = 0; i < partCount; i++) {
      const end = commits[(i + 1) * CHAIN_PART_COMMITS - 1]!;
      ends.push(end);
      if (storedEnds[i] !== end) writes.push(write.putMeta(partKey(clientGroupID, i), commits.slice(i * CHAIN_PART_COMMITS, (i + 1) * CHAIN_PART_COMMITS)));
    }
    value.parts = ends;
    value.tail = commits.slice(partCount * CHAIN_PART_COMMITS);
  }
  for (let i = partCount; i < storedEnds.length; i++) writes.push(write.delMeta(partKey(clientGroupID, i)));
  writes.push(write.putMeta(chainKey(clientGroupID), value));
  await Promise.all(writes);
  return stored;
}

/**
 * Deletes the group's chain record and its parts, however many there are (a
 * tab of an older version may have replaced a record in parts with one of its own).
 */
export async function deleteGroupChain(write: PersistentDagWrite, clientGroupID: string): Promise<void> {
  await write.prefetchMeta(partKey(clientGroupID, ''));
  const deletes = [write.delMeta(chainKey(clientGroupID))];
  for (let i = 0; (await write.getMeta(partKey(clientGroupID, i))) !== undefined; i++) deletes.push(write.delMeta(partKey(clientGroupID, i)));
  await Promise.all(deletes);
}
