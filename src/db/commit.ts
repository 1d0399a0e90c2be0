import type { ReadonlyJSONValue } from '../../protocol/json';
import type { Chunk, DagRead, DagWrite, Hash } from '../dag/types';
import type { IndexDefinition } from './index-definition';

/** The root of one index map of a commit. */
export interface IndexRecord {
  readonly name: string;
  readonly definition: Required<IndexDefinition>;
  readonly valueHash: Hash;
}

export type Cookie = ReadonlyJSONValue;

/** A state received from the server. Snapshots do not point at older history. */
export interface SnapshotCommitData {
  readonly type: 'snapshot';
  readonly basisHash: null;
  readonly cookie: Cookie;
  /** Last mutation id the server processed, per client of this client group. */
  readonly lastMutationIDs: Readonly<Record<string, number>>;
  readonly valueHash: Hash;
  readonly indexes: readonly IndexRecord[];
}

/** One mutation applied locally on top of its basis. */
export interface LocalCommitData {
  readonly type: 'local';
  readonly basisHash: Hash;
  readonly mutationID: number;
  readonly mutatorName: string;
  readonly mutatorArgs: ReadonlyJSONValue;
  readonly timestamp: number;
  readonly clientID: string;
  /** The commit this one was rebased from (not kept alive by this reference). */
  readonly originalHash: Hash | null;
  readonly valueHash: Hash;
  readonly indexes: readonly IndexRecord[];
}

export type CommitData = SnapshotCommitData | LocalCommitData;

export interface Commit<D extends CommitData = CommitData> {
  readonly hash: Hash;
  readonly data: D;
}

export const MAIN_HEAD = 'main';
export const SYNC_HEAD = 'sync';

export class InvalidCommitError extends Error {
  readonly kind = 'InvalidCommit';
  override readonly name = 'InvalidCommitError';
  constructor(readonly hash: Hash) {
    super(`Chunk ${hash} is not a commit`);
  }
}

/**
 * The tree hash of a local commit made below a head in one go (a rebase, a
 * merge): its trees were never written (see letGoOfTrees). Never a chunk.
 */
export const UNKEPT_TREE: Hash = '';

/** Whether a commit's map is stored (a local commit below a head may have let go of it: UNKEPT_TREE). */
export async function hasTrees(dag: DagRead, commit: Commit): Promise<boolean> {
  return commit.data.valueHash !== UNKEPT_TREE && dag.hasChunk(commit.data.valueHash);
}

function commitRefs(data: CommitData): Hash[] {
  const refs: Hash[] = [];
  if (data.basisHash !== null) refs.push(data.basisHash);
  if (data.valueHash !== UNKEPT_TREE) refs.push(data.valueHash);
  for (const ix of data.indexes) if (ix.valueHash !== UNKEPT_TREE) refs.push(ix.valueHash);
  return refs;
}

export function newCommitChunk(dag: DagWrite, data: CommitData): Chunk {
  return dag.createChunk(data as unknown as ReadonlyJSONValue, commitRefs(data));
}

/** The chunk itself serves as the commit (it has the hash and the data): reading a chain of 100,000 commits makes no object per commit. */
function asCommit(chunk: Chunk): Commit {
  const data = chunk.data as unknown as CommitData;
  if (typeof data !== 'object' || data === null || (data.type !== 'snapshot' && data.type !== 'local')) {
    throw new InvalidCommitError(chunk.hash);
  }
  return chunk as unknown as Commit;
}

export async function readCommit(dag: DagRead, hash: Hash): Promise<Commit> {
  return asCommit(await dag.mustGetChunk(hash));
}

export async function readHeadCommit(dag: DagRead, head: string): Promise<Commit | undefined> {
  const hash = await dag.getHead(head);
  return hash === undefined ? undefined : readCommit(dag, hash);
}

export function isLocal(c: Commit): c is Commit<LocalCommitData> {
  return c.data.type === 'local';
}

/** A chain below some commit, snapshot first: what readChain's `known` answers for a commit it knows. */
export interface ChainBelow {
  readonly snapshot: Commit<SnapshotCommitData>;
  /** Oldest first, the known commit last. */
  readonly locals: readonly Commit<LocalCommitData>[];
}

/**
 * Walks from `head` to its snapshot. Returns the snapshot and the local
 * commits on top of it, oldest first. `known`: asked for a basis not at hand
 * before it is read; a chain it answers (ending in that commit) is taken as
 * the rest of the walk.
 */
export async function readChain(
  dag: DagRead,
  head: Commit,
  known?: (hash: Hash) => ChainBelow | undefined,
): Promise<{ snapshot: Commit<SnapshotCommitData>; locals: Commit<LocalCommitData>[] }> {
  const locals: Commit<LocalCommitData>[] = [];
  let c = head;
  while (isLocal(c)) {
    locals.push(c);
    // Commits at hand are read without a promise each (a long pending chain is walked on every sync).
    const basis = dag.peekChunk?.(c.data.basisHash);
    const below = basis === undefined ? known?.(c.data.basisHash) : undefined;
    if (below !== undefined) return { snapshot: below.snapshot, locals: below.locals.concat(locals.reverse()) };
    c = basis === undefined ? await readCommit(dag, c.data.basisHash) : asCommit(basis);
  }
  locals.reverse();
  return { snapshot: c as Commit<SnapshotCommitData>, locals };
}

/**
 * Only the head's trees are ever read: the local commits below it let go of
 * theirs (see DagWrite.keepOnlyRefs), so memory and storage do not keep a
 * tree per pending mutation. Code that would build on such a commit replays
 * its mutation instead.
 */
export function letGoOfTrees(dag: DagWrite, commits: readonly Commit[]): void {
  for (const c of commits) if (isLocal(c)) dag.keepOnlyRefs(c.hash, [c.data.basisHash]);
}
