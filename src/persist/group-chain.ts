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

/** A chain record's value, or undefined when it is not one (a top level of another shape, or too wide, is left out). */
function parseGroupChain(value: unknown): GroupChain | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { head, commits, root, top } = value as Record<string, unknown>;
  if (typeof head !== 'string' || typeof root !== 'string' || !Array.isArray(commits) || !commits.every((h) => typeof h === 'string') || commits.at(-1) !== head) {
    return undefined;
  }
  const topFits = Array.isArray(top) && top.length <= PRELOADED_ROOT_CHILDREN_MAX && top.every((h) => typeof h === 'string');
  return { head, commits: commits as Hash[], root, ...(topFits ? { top: top as Hash[] } : {}) };
}

/** The chain recorded for the group's head (check that it ends in the head). */
export async function readGroupChain(read: PersistentDagRead, clientGroupID: string): Promise<GroupChain | undefined> {
  return parseGroupChain(await read.getMeta(chainKey(clientGroupID)));
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
  return Array.isArray(first) && first.length <= HINT_FIRST_READ_MAX && first.every((h) => typeof h === 'string') ? { ...chain, first: first as Hash[] } : chain;
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

/** Writes the chain record of the group; returns the chain as a read of the record would (storedGroupChain). */
export async function writeGroupChain(write: PersistentDagWrite, clientGroupID: string, chain: GroupChain): Promise<GroupChain> {
  const stored = storedGroupChain(chain);
  const value: Record<string, ReadonlyJSONValue> = { head: stored.head, commits: [...stored.commits], root: stored.root };
  if (stored.top !== undefined) value.top = [...stored.top];
  await write.putMeta(chainKey(clientGroupID), value);
  return stored;
}

export function deleteGroupChain(write: PersistentDagWrite, clientGroupID: string): Promise<void> {
  return write.delMeta(chainKey(clientGroupID));
}
