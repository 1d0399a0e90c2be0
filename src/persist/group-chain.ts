/**
 * The chain a client group's head stands on, kept beside the group record:
 * its snapshot and local commits, oldest first. A client opening the store
 * reads them all at once (one round of parallel reads) instead of walking
 * from commit to commit, one read per pending mutation. Only trusted while
 * its head is the group's head.
 */
import type { PersistentDagRead, PersistentDagWrite } from '../dag/store';
import type { Hash } from '../dag/types';

export interface GroupChain {
  /** The group head this chain ends in. */
  readonly head: Hash;
  /** The snapshot first, then the local commits, the head last. */
  readonly commits: readonly Hash[];
  /** The root of the head's map. */
  readonly root: Hash;
}

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
  return isGroupChain(value) ? value : undefined;
}

export function writeGroupChain(write: PersistentDagWrite, clientGroupID: string, chain: GroupChain): Promise<void> {
  return write.putMeta(chainKey(clientGroupID), { head: chain.head, commits: [...chain.commits], root: chain.root });
}

export function deleteGroupChain(write: PersistentDagWrite, clientGroupID: string): Promise<void> {
  return write.delMeta(chainKey(clientGroupID));
}
