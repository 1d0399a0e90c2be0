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

function isGroupChain(value: unknown): value is GroupChain {
  if (typeof value !== 'object' || value === null) return false;
  const { head, commits, root } = value as Record<string, unknown>;
  return (
    typeof head === 'string' &&
    typeof root === 'string' &&
    Array.isArray(commits) &&
    commits.every((h) => typeof h === 'string') &&
    commits.at(-1) === head
  );
}

/** The chain recorded for the group's head (check that it ends in the head). */
export async function readGroupChain(read: PersistentDagRead, clientGroupID: string): Promise<GroupChain | undefined> {
  const value = await read.getMeta(chainKey(clientGroupID));
  if (!isGroupChain(value)) return undefined;
  // A top level of another shape (or too wide) is read from the root instead.
  const { top } = value as { top?: unknown };
  const topFits = Array.isArray(top) && top.length <= PRELOADED_ROOT_CHILDREN_MAX && top.every((h) => typeof h === 'string');
  return { head: value.head, commits: value.commits, root: value.root, ...(topFits ? { top: top as Hash[] } : {}) };
}

export function writeGroupChain(write: PersistentDagWrite, clientGroupID: string, chain: GroupChain): Promise<void> {
  const value: Record<string, ReadonlyJSONValue> = { head: chain.head, commits: [...chain.commits], root: chain.root };
  if (chain.top !== undefined && chain.top.length <= PRELOADED_ROOT_CHILDREN_MAX) value.top = [...chain.top];
  return write.putMeta(chainKey(clientGroupID), value);
}

export function deleteGroupChain(write: PersistentDagWrite, clientGroupID: string): Promise<void> {
  return write.delMeta(chainKey(clientGroupID));
}
