/**
 * A new client (a page load, a tab) enters the shared local store: it joins
 * the client group whose mutators and indexes match its own, or forks a new
 * group from the newest snapshot any group holds, so it never starts empty
 * when data is there. One write, so two tabs opening at once end up in one group.
 */
import { writeBTree } from '../btree/btree';
import { NODE_HINT } from '../btree/node';
import type { PersistentDagRead, PersistentDagStore, PersistentDagWrite } from '../dag/store';
import type { Chunk, Hash } from '../dag/types';
import { newCommitChunk, readChain, readCommit, type Commit, type CommitData, type SnapshotCommitData } from '../db/commit';
import { compareCookies } from '../db/cookie-order';
import { compileIndex, sameIndexDefinition, type IndexDefinitions } from '../db/index-definition';
import { CHAIN_RECORDS_PREFIX, PRELOADED_ROOT_CHILDREN_MAX, readGroupChain, type GroupChain, type HintedChain } from './group-chain';
import { GROUPS_PREFIX, readForNewClient, readGroupIDs, readGroups, writeClient, writeGroup, type ClientGroupRecord } from './records';

export interface JoinOptions {
  readonly clientID: string;
  readonly mutatorNames: readonly string[];
  readonly indexes: IndexDefinitions;
  /** Now, for the client's first heartbeat. */
  readonly now: number;
  readonly newClientGroupID: () => string;
  /** The chain this store's clients last worked on (a guess, see ChainHint): its chunks are asked for in the first round. */
  readonly hint?: HintedChain;
}

export interface Joined {
  readonly clientGroupID: string;
  /** The group head the client starts from. */
  readonly headHash: Hash;
  /** 'joined' an existing group, or made a new one ('forked' from a snapshot, or 'new' in an empty store). */
  readonly how: 'joined' | 'forked' | 'new';
  /** Why no existing group fit, when one exists. */
  readonly reason?: string;
  /**
   * Chunks the client reads first, read in the joining transaction: the
   * head's chain (when recorded beside the group) and the root of its map.
   */
  readonly preloaded: readonly Chunk[];
  /** The stored chain of the head, when one is recorded (what the next start's hint should be). */
  readonly chain?: GroupChain;
  /** The hint's first-read nodes found in the store (they are among the preloaded chunks). */
  readonly firstFound?: readonly Hash[];
}

/**
 * Joins (or forks) the client group in one write, resolving once everything
 * is read and the joining transaction's commit has started: work that needs only what was read (e.g.
 * opening the database over the preloaded chunks) can go on while it
 * commits. The join holds once `committed` resolves; a later read of the
 * store waits for that commit anyway (IndexedDB runs it after the write).
 */
export async function startJoiningClientGroup(perdag: PersistentDagStore, options: JoinOptions): Promise<Joined & { readonly committed: Promise<void> }> {
  const w = await perdag.write();
  let committed: Promise<void> | undefined;
  let joined: Joined;
  try {
    joined = await joinIn(w, options, (commit) => (committed = commit));
  } catch (error) {
    // A read after the commit started failed: the write is released once its commit has ended.
    await committed?.catch(() => {});
    w.release();
    throw error;
  }
  return { ...joined, committed: committed!.finally(() => w.release()) };
}

/** The join in `w`; `started` gets the commit as soon as it starts. */
async function joinIn(w: PersistentDagWrite, options: JoinOptions, started: (commit: Promise<void>) => void): Promise<Joined> {
  const mutatorNames = [...options.mutatorNames].sort();
  // Read in rounds: the group ids with what the client record's write reads (and every group and chain
  // record at once, where the store can: the second round is then answered from memory), then the
  // groups with their chains. A hint's chunks are asked for in the first round: when it is right, the
  // head's chunks are then answered from the transaction's memory too.
  // The group records and the list of group ids in one request.
  const firstRound = Promise.all([
    w.prefetchMeta(GROUPS_PREFIX).then(() => readGroupIDs(w)),
    readForNewClient(w, options.clientID),
    w.prefetchMeta(CHAIN_RECORDS_PREFIX),
  ]);
  const hint = options.hint;
  // A hint whose first-read nodes go through one of the root's children (the path to the key the last
  // start read first) is read without the root's other children: the first read needs its path, not the
  // whole top level.
  if (hint !== undefined) Promise.all([readHeadChunks(w, hint.head, hint, !pathThroughTop(hint, hint)), w.refCount(hint.head)]).catch(() => {});
  // A node that is gone, or is not a node, is not preloaded.
  const firstReadNodes = (hint?.first ?? []).map((hash) => w.getChunk(hash, NODE_HINT).catch(() => undefined));
  const [groupIDs] = await firstRound;
  const [groups, chains] = await Promise.all([readGroups(w), Promise.all(groupIDs.map((id) => readGroupChain(w, id)))]);
  let joined: Omit<Joined, 'preloaded'> | undefined;
  const reasons: string[] = [];
  for (const [clientGroupID, group] of groups) {
    const reason = incompatibility(group, mutatorNames, options.indexes);
    if (reason === undefined) {
      joined = { clientGroupID, headHash: group.headHash, how: 'joined' };
      break;
    }
    reasons.push(`${clientGroupID}: ${reason}`);
  }
  if (joined === undefined) {
    const clientGroupID = options.newClientGroupID();
    const newest = await newestSnapshot(w, groups.values());
    const head = newest === undefined ? await writeGenesis(w, options.indexes) : await forkSnapshot(w, newest);
    const group: ClientGroupRecord = {
      headHash: head,
      mutatorNames,
      indexes: options.indexes,
      mutationIDs: {},
      lastServerAckdMutationIDs: {},
      disabled: false,
    };
    await writeGroup(w, clientGroupID, group, undefined);
    joined = {
      clientGroupID,
      headHash: head,
      how: newest === undefined ? 'new' : 'forked',
      ...(reasons.length > 0 ? { reason: reasons.join('; ') } : {}),
    };
  }
  const client = { heartbeatTimestampMs: options.now, headHash: joined.headHash, clientGroupID: joined.clientGroupID, tempRefreshHash: null };
  const chain = chains[groupIDs.indexOf(joined.clientGroupID)];
  const headChain = chain?.head === joined.headHash ? chain : undefined;
  // The hint's path stands for the top level only where it goes through the head's own top level (after a
  // change under the root, the stored chain lists other children than the hint's path).
  const withTop = !pathThroughTop(hint, headChain);
  const [, head] = await Promise.all([
    writeClient(w, options.clientID, client, undefined),
    readHeadChunks(w, joined.headHash, headChain, withTop),
    // Read with the chunks: the commit reads it again (from the transaction's memory) to count the client's head.
    w.refCount(joined.headHash),
  ]);
  // The first read walks down from the root: a small top level comes in the same transaction (read with
  // the chain when the chain lists it; else now, while the transaction commits).
  const topLevel =
    withTop && !head.withTop && head.root !== undefined && head.root.refs.length <= PRELOADED_ROOT_CHILDREN_MAX
      ? Promise.all(head.root.refs.map((ref) => w.getChunk(ref, NODE_HINT)))
      : undefined;
  topLevel?.catch(() => {});
  const commit = w.commit();
  commit.catch(() => {}); // awaited by the caller
  started(commit);
  const children = (await topLevel)?.filter((c): c is Chunk => c !== undefined) ?? [];
  const preloaded = new Set([...head.chunks, ...children].map((c) => c.hash));
  // Only tree nodes (a commit read as one would lose its refs), and none preloaded already.
  const firstRead = (await Promise.all(firstReadNodes)).filter((c): c is Chunk => c !== undefined && isNodeData(c.data) && !preloaded.has(c.hash));
  return {
    ...joined,
    preloaded: [...head.chunks, ...children, ...firstRead],
    ...(headChain === undefined ? {} : { chain: headChain }),
    ...(firstRead.length === 0 ? {} : { firstFound: firstRead.map((c) => c.hash) }),
  };
}

/**
 * A first read's nodes with the root's children above them (preloaded with
 * the top level, so the first read did not read them): kept in the hint, they
 * let the next start read that path alone (see pathThroughTop).
 */
export function firstReadPath(nodes: readonly Hash[], joined: Joined): Hash[] {
  const top = joined.chain?.top;
  if (top === undefined || nodes.length === 0) return [...nodes];
  const below = new Set(nodes);
  const above = joined.preloaded.filter((c) => top.includes(c.hash) && !below.has(c.hash) && c.refs.some((h) => below.has(h)));
  return [...above.map((c) => c.hash), ...nodes];
}

/** Whether the hint's first-read nodes go through a child of the root `chain` lists (its top level). */
function pathThroughTop(hint: HintedChain | undefined, chain: GroupChain | undefined): boolean {
  const top = chain?.top;
  return hint?.first !== undefined && top !== undefined && hint.first.some((hash) => top.includes(hash));
}

/**
 * The head's chain, the root of its map and (when the chain lists them and
 * `top` asks for them) the root's children, in one round of reads (two when
 * no chain is recorded: the head, then its root). `withTop`: the root's
 * children are among the chunks.
 */
async function readHeadChunks(
  r: PersistentDagRead,
  head: Hash,
  chain: GroupChain | undefined,
  top = true,
): Promise<{ chunks: Chunk[]; root?: Chunk; withTop: boolean }> {
  if (chain === undefined) {
    const headChunk = await r.getChunk(head);
    if (headChunk === undefined) return { chunks: [], withTop: false };
    const root = await r.getChunk((headChunk.data as unknown as CommitData).valueHash, NODE_HINT);
    return root === undefined ? { chunks: [headChunk], withTop: false } : { chunks: [headChunk, root], root, withTop: false };
  }
  const children = top ? (chain.top ?? []) : [];
  // The root and its children are tree nodes: each is one read (their refs follow from their data).
  const chunks = await Promise.all([
    ...chain.commits.map((hash) => r.getChunk(hash)),
    ...[chain.root, ...children].map((hash) => r.getChunk(hash, NODE_HINT)),
  ]);
  const root = chunks[chain.commits.length];
  return { chunks: chunks.filter((c): c is Chunk => c !== undefined), ...(root === undefined ? {} : { root }), withTop: top && chain.top !== undefined };
}

/** Whether chunk data has the shape of a tree node (`[level, entries]`). */
function isNodeData(data: unknown): boolean {
  return Array.isArray(data) && data.length === 2 && typeof data[0] === 'number' && Array.isArray(data[1]);
}

/** Why a group cannot take this client, or undefined when it can. */
export function incompatibility(group: ClientGroupRecord, sortedMutatorNames: readonly string[], indexes: IndexDefinitions): string | undefined {
  if (group.disabled) return 'disabled';
  if (group.mutatorNames.length !== sortedMutatorNames.length || group.mutatorNames.some((n, i) => n !== sortedMutatorNames[i])) {
    return 'other mutators';
  }
  const names = Object.keys(indexes);
  const stored = Object.keys(group.indexes);
  if (names.length !== stored.length || names.some((n) => group.indexes[n] === undefined || !sameIndexDefinition(group.indexes[n]!, indexes[n]!))) {
    return 'other indexes';
  }
  return undefined;
}

async function newestSnapshot(w: PersistentDagWrite, groups: Iterable<ClientGroupRecord>): Promise<Commit<SnapshotCommitData> | undefined> {
  let newest: Commit<SnapshotCommitData> | undefined;
  for (const group of groups) {
    const { snapshot } = await readChain(w, await readCommit(w, group.headHash));
    if (newest === undefined || compareCookies(snapshot.data.cookie, newest.data.cookie) > 0) newest = snapshot;
  }
  return newest;
}

/** The same server state for a new group: none of its mutation ids are acknowledged yet. */
async function forkSnapshot(w: PersistentDagWrite, snapshot: Commit<SnapshotCommitData>): Promise<Hash> {
  const chunk = newCommitChunk(w, { ...snapshot.data, lastMutationIDs: {} });
  await w.putChunk(chunk);
  return chunk.hash;
}

async function writeGenesis(w: PersistentDagWrite, indexes: IndexDefinitions): Promise<Hash> {
  const emptyTree = () => writeBTree(w, undefined).flush();
  const records = [];
  for (const [name, definition] of Object.entries(indexes)) {
    records.push({ name, definition: compileIndex(name, definition).definition, valueHash: await emptyTree() });
  }
  const data: SnapshotCommitData = { type: 'snapshot', basisHash: null, cookie: null, lastMutationIDs: {}, valueHash: await emptyTree(), indexes: records };
  const chunk = newCommitChunk(w, data);
  await w.putChunk(chunk);
  return chunk.hash;
}
