/**
 * Persist and refresh of one client (tab) of a shared local store.
 *
 * The tab works on its own memory view (the memory dag, head 'main'); the
 * shared store holds, per client group, the head every tab of the group
 * merges into (SPEC.md §3). One `sync()` does both directions:
 *
 * 1. When the group head moved since this tab last merged it, the tab
 *    protects it (the client record's tempRefreshHash, so no other tab can
 *    collect its chunks while they are read), gathers its chunks (at most
 *    REFRESH_MAX_GATHER_BYTES) and merges it into its view: the other tabs'
 *    pending mutations are rebased into it and subscriptions fire.
 * 2. The tab stores its view (client head := view; its chunks written) and,
 *    if the group head is still the one it merged, moves the group head to
 *    the merge of both (a compare-and-set). If another tab moved it meanwhile,
 *    it starts again from 1.
 *
 * Everything the view references is either in memory or reachable from the
 * client's own head (or, during a refresh, its refresh head), so no other
 * tab's persist or GC can collect a chunk this tab still needs.
 * When the group head is the one last merged and the view is at least as new,
 * a sync is a single write.
 */
import { REFRESH_MAX_GATHER_BYTES } from '../../protocol/constants';
import type { Chunk, Hash } from '../dag/types';
import type { LazyDagStore } from '../dag/lazy-store';
import type { PersistentDagStore, PersistentDagWrite } from '../dag/store';
import { readCommit, UNKEPT_TREE, type CommitData, type SnapshotCommitData } from '../db/commit';
import { compareCookies } from '../db/cookie-order';
import type { Database } from '../db/database';
import { applyMergePlan, isNoOp, planMerge, readChainOf, type Chain } from '../db/merge-chains';
import { localCommitData } from '../db/mutation-runner';
import { lazyChunk } from '../lazy-chunk';
import { readChainPartEnds, writeGroupChain, type GroupChain } from './group-chain';
import { readClient, readGroup, writeClient, writeGroup, type ClientGroupRecord } from './records';

/** A sync starts over this many times when other tabs keep moving the group head, then gives up until the next one. */
const MAX_SYNC_ATTEMPTS = 5;

/** What tab-merge.ts (loaded only when needed) uses of the start-up code, handed to it rather than imported. */
const tabMergeKit = { UNKEPT_TREE, readCommit, readChainOf, planMerge, isNoOp, applyMergePlan, localCommitData, readClient, readGroup, writeClient } as const;
export type TabMergeKit = typeof tabMergeKit;

/** The multi-tab and long-chain paths of a sync (tab-merge.ts), loaded the first time one runs (a failed load is tried again at the next sync that needs it). */
export const loadTabMerge = lazyChunk(() => import('./tab-merge'));

export type SyncResult =
  /** Nothing to do, or done. */
  | 'synced'
  /** This client's record (or its group) is gone or the group is disabled: the app must start over. */
  | 'client-state-not-found'
  /** Other tabs kept moving the group head; the next sync tries again. */
  | 'busy';

export interface TabSyncOptions {
  readonly perdag: PersistentDagStore;
  readonly memdag: LazyDagStore;
  readonly db: Database;
  readonly clientID: string;
  readonly clientGroupID: string;
  /** The group head this client started from. */
  readonly startHead: Hash;
  /** Whether the view must stay on its own snapshot (a connected tab follows its socket's pokes). */
  readonly keepOwnSnapshot: () => boolean;
  /** Told after this tab moved the group head (other tabs should refresh), with the chain record it wrote for it (as a read of it would return). */
  readonly onGroupHeadMoved?: (head: Hash, chain: GroupChain) => void;
  /** @default REFRESH_MAX_GATHER_BYTES */
  readonly refreshGatherBytes?: number;
  /** Commits of a dropped chain collected per write (see #releaseInSlices). @default SLICE_COMMITS */
  readonly releaseSliceCommits?: number;
  /** Local commits stored per write ahead of a view's store (see #storeSlices). @default SLICE_COMMITS */
  readonly storeSliceCommits?: number;
}

/**
 * Commits per persistent write when a long chain is stored or let go of:
 * a view whose stored chain ends in more local commits only in memory than
 * this (e.g. a backlog of 100,000 offline mutations, first stored when the
 * drain starts) stores them this many per write, oldest first, before the
 * write of the view; a chain the group head leaves that is longer than this
 * (the same backlog once acknowledged) is collected this many per write. One
 * write of 100,000 commits made 60–70 MB of short-lived bookkeeping at once
 * (new-chunk maps, ref-count slots and counts, the kv write's undo).
 */
const SLICE_COMMITS = 1_000;

/** What a chain holds, as far as the group record and merging care. */
interface HeadInfo {
  readonly hash: Hash;
  readonly cookie: SnapshotCommitData['cookie'];
  /** The snapshot's acknowledged mutation ids. */
  readonly acked: Readonly<Record<string, number>>;
  /** Pending mutation ids per client, increasing (a number each, not a string: a backlog may hold 100,000). */
  readonly pending: ReadonlyMap<string, readonly number[]>;
  /** Highest mutation id per client, acknowledged or pending. */
  readonly lastIDs: Readonly<Record<string, number>>;
  /** The snapshot's hash, then the local commits', the head's last. */
  readonly chain: readonly Hash[];
  /** The root of the head's map. */
  readonly root: Hash;
}

/** A head to store: its chain as described, and its chunks that are only in memory (children first). */
interface StoredHead {
  readonly info: HeadInfo;
  readonly chunks: readonly Chunk[];
}

export class TabSync {
  readonly #o: TabSyncOptions;
  /** The group head this view last merged. */
  #merged: HeadInfo | undefined;
  #running: Promise<SyncResult> | undefined;
  #queued: Promise<SyncResult> | undefined;
  /**
   * Chunks a slice write stored that no later write of this client has yet
   * taken in (a store stopped midway): the store may or may not hold them
   * (the refresh head held them and may have moved since), so the next write
   * puts them with their stored count read, never as new.
   */
  readonly #maybeStored = new Set<Hash>();

  constructor(options: TabSyncOptions) {
    this.#o = options;
  }

  /** Runs one sync; calls made while one runs share one more run after it. */
  sync(): Promise<SyncResult> {
    if (this.#queued !== undefined) return this.#queued;
    if (this.#running !== undefined) {
      this.#queued = this.#running.then(
        () => this.#startQueued(),
        () => this.#startQueued(),
      );
      return this.#queued;
    }
    const run = this.#syncNow().finally(() => {
      this.#running = undefined;
    });
    this.#running = run;
    return run;
  }

  #startQueued(): Promise<SyncResult> {
    this.#queued = undefined;
    return this.sync();
  }

  async #syncNow(): Promise<SyncResult> {
    const { db } = this.#o;
    this.#merged ??= await this.#describe(this.#o.startHead);
    for (let attempt = 0; attempt < MAX_SYNC_ATTEMPTS; attempt++) {
      const merged = this.#merged;
      if (compareCookies(db.snapshotCommit.data.cookie, merged.cookie) >= 0) {
        // The view is as new as the group head it merged last: if that is still the group head, the view supersedes it.
        const result = await this.#storeView();
        if (result !== 'conflict') return result;
      }
      // The group head moved since this view merged it (another tab): what follows runs only then.
      const merge = await loadTabMerge();
      // A closed view still at the group head it merged holds nothing the store lacks: storing it would only
      // describe the head other tabs made meanwhile (a read per commit) to leave that head as it is.
      if (db.isClosed && db.headCommit.hash === merged.hash) return merge.closeUnchanged(tabMergeKit, this.#o);
      const seen = await merge.protectGroupHead(tabMergeKit, this.#o);
      if (seen === 'client-state-not-found') return seen;
      // A closed view takes nothing in any more (its final store still merges into the group).
      if (seen !== this.#merged.hash && !db.isClosed) await merge.refresh(tabMergeKit, this.#o, seen, this.#o.refreshGatherBytes ?? REFRESH_MAX_GATHER_BYTES);
      const result = await this.#storeMerged(merge, await this.#describe(seen, merge));
      if (result !== 'conflict') return result;
    }
    return 'busy';
  }

  /** Stores the view and moves the group head from `group` (protected) to the merge of both. */
  async #storeMerged(merge: typeof import('./tab-merge'), group: HeadInfo): Promise<SyncResult | 'conflict'> {
    const { db } = this.#o;
    const { view, target } = await db.lock.run(async () => {
      const view = this.#captureView();
      // The merge is held by a head of its own (MERGE_HEAD) until it is stored, so the memory dag does not collect it.
      const merged = await merge.mergeWithGroup(tabMergeKit, this.#o, view.info.hash, group.hash);
      if (merged === 'ours') return { view, target: view };
      if (merged === 'theirs') return { view, target: { info: group, chunks: [] } };
      const head = describeChain(merged);
      return { view, target: { info: head, chunks: this.#storedClosure(head.hash, new Set([view.info.hash, head.hash])) } };
    });
    try {
      return await this.#store(view, group, target);
    } finally {
      if (target !== view && target.info.hash !== group.hash) await merge.dropMergeHead(this.#o);
    }
  }

  /** Stores the view over the group head it merged last. */
  async #storeView(): Promise<SyncResult | 'conflict'> {
    const view = await this.#o.db.lock.run(() => this.#captureView());
    return this.#store(view, this.#merged!, view);
  }

  /**
   * The view as it stands and the chunks a store of it writes. Run under the
   * database lock: no commit can move the view (and collect its chunks)
   * before they are gathered.
   */
  #captureView(): StoredHead {
    const { db } = this.#o;
    const head = db.headCommit;
    // The database's own lists, read here at once: no object per pending mutation for each store of a long backlog.
    const locals = db.headLocals();
    const chain = [db.snapshotCommit.hash];
    for (const hash of locals.hashes) chain.push(hash);
    const info = describePending(chain, head.data.valueHash, db.snapshotCommit.data.cookie, db.snapshotCommit.data.lastMutationIDs, locals.mutations);
    return { info, chunks: this.#storedClosure(head.hash, new Set([head.hash])) };
  }

  /**
   * What storing the chain up to `root` writes: its memory-only chunks,
   * children first, where a local commit that is not one of `heads` goes
   * without its trees (only the heads' trees are ever read back; a merge that
   * would build on such a commit replays it instead).
   */
  #storedClosure(root: Hash, heads: ReadonlySet<Hash>): Chunk[] {
    const form = (chunk: Chunk) => storedForm(chunk, heads);
    return this.#o.memdag.memoryOnlyClosure([root], (chunk) => form(chunk).refs).map(form);
  }

  /**
   * One write: the view's chunks and the client head; then, if the group head
   * is still `expected` and `target` adds to it, the group head moves to `target`.
   */
  async #store(view: StoredHead, expected: HeadInfo, target: StoredHead): Promise<SyncResult | 'conflict'> {
    const { memdag, clientID, clientGroupID } = this.#o;
    const viewChunks = view.chunks;
    const sliced = await this.#storeSlices(view);
    const maybeStored = this.#maybeStored;
    // The slices' chunks are stored, unless the refresh head let go of them (then the write below puts them again).
    const stored = sliced?.hashes;
    const put = (w: PersistentDagWrite, chunk: Chunk) => (maybeStored.has(chunk.hash) || stored?.has(chunk.hash) ? w.putChunk(chunk) : w.putNewChunk(chunk));
    const next = target.info;
    const moveGroup = !addsNothing(next, expected);
    const dropsLongChain = moveGroup && this.#dropsLongChain(expected, next);
    const targetChunks = moveGroup && target !== view ? target.chunks : [];
    const viewHash = view.info.hash;
    let outcome: 'client-state-not-found' | 'conflict' | 'moved' | 'kept' = 'client-state-not-found';
    // The chain record this store wrote for the new group head.
    let written: GroupChain | undefined;
    try {
      outcome = await this.#o.perdag.withWrite(async (w) => {
        const [client, group, storedEnds] = await Promise.all([readClient(w, clientID), readGroup(w, clientGroupID), moveGroup ? readChainPartEnds(w, clientGroupID) : []]);
        if (client === undefined || group === undefined || group.disabled) return 'client-state-not-found' as const;
        const conflict = group.headHash !== expected.hash;
        // The slices are stored (held by the refresh head, which this write lets go of) if the refresh head is still where they left it.
        const slicesHeld = sliced !== null && client.tempRefreshHash === sliced.top;
        for (const chunk of viewChunks) if (!(slicesHeld && sliced.hashes.has(chunk.hash))) await put(w, chunk);
        if (!conflict && moveGroup) {
          for (const chunk of targetChunks) await put(w, chunk);
          await writeGroup(w, clientGroupID, groupRecordFor(next, group), group);
          const top = memdag.memoryChunk(next.root)?.refs;
          written = await writeGroupChain(w, clientGroupID, { head: next.hash, commits: next.chain, root: next.root, ...(top === undefined ? {} : { top }) }, storedEnds);
        }
        // A long chain the group head leaves stays held by this client's refresh head, to be let go of in slices after this write.
        const held = !conflict && dropsLongChain ? expected.hash : null;
        if (client.headHash !== viewHash || client.tempRefreshHash !== held) {
          await writeClient(w, clientID, { ...client, headHash: viewHash, tempRefreshHash: held }, client);
        }
        await w.commit();
        return conflict ? ('conflict' as const) : moveGroup ? ('moved' as const) : ('kept' as const);
      });
    } finally {
      // The client head did not take the slices in: the refresh head may still hold them.
      if (outcome === 'client-state-not-found' && stored !== undefined) this.#mayHaveStored(stored);
    }
    if (outcome === 'client-state-not-found' || outcome === 'conflict') {
      if (outcome === 'conflict') this.#persisted(viewChunks);
      return outcome;
    }
    this.#persisted(viewChunks);
    if (outcome === 'kept') {
      this.#merged = expected;
      return 'synced';
    }
    this.#persisted(targetChunks);
    this.#merged = next;
    // 'moved': the write wrote the chain record.
    this.#o.onGroupHeadMoved?.(next.hash, written!);
    if (dropsLongChain) {
      // Housekeeping after the store: if it stops (e.g. the store closed), the refresh head holds the rest until the next store lets go of it at once.
      await loadTabMerge()
        .then((merge) => merge.releaseInSlices(tabMergeKit, this.#o, expected.chain, this.#sliceCommits()))
        .catch(() => {});
    }
    return 'synced';
  }

  /**
   * `chunks` are stored (held by the client's heads): the memory dag may let
   * go of them. It keeps no copy of the local commits below a head (stored
   * without their trees): nothing reads them back while the client runs (its
   * database keeps their hashes and mutations), and a backlog of 100,000
   * offline mutations held them in the chunk cache until they were acknowledged.
   */
  #persisted(chunks: readonly Chunk[]): void {
    this.#o.memdag.markPersisted(chunks, (chunk) => !isBareLocalCommit(chunk));
    if (this.#maybeStored.size > 0) for (const chunk of chunks) this.#maybeStored.delete(chunk.hash);
  }

  /**
   * Stores the oldest of the view's local commits that are only in memory a
   * slice per write (SLICE_COMMITS), ahead of the write of the view:
   * each slice is a run of commits as stored (without their trees, see
   * storedForm) whose oldest builds on a stored commit or on the slice before,
   * so a slice refers to no chunk that is not stored; the client's refresh
   * head holds the newest stored so far (a slice write moves it up the chain).
   * Only when the refresh head holds nothing else (null: no refresh is under
   * way and no dropped chain is being let go of), so that no chunk the view
   * needs loses its hold; each later slice only if the refresh head is where
   * the one before left it. Stopped midway (a crash, the store closed, the
   * client gone), the store is consistent: the refresh head holds a chain
   * that goes when the client is collected or its next write sets the head
   * again, and the write-ahead log still holds the mutations. Returns the
   * slices stored (null if none): their newest commit and their hashes, which
   * the view's write leaves out while the refresh head still holds them.
   */
  async #storeSlices(view: StoredHead): Promise<{ readonly top: Hash; readonly hashes: ReadonlySet<Hash> } | null> {
    const step = Math.max(1, this.#o.storeSliceCommits ?? SLICE_COMMITS);
    const chain = view.info.chain;
    // Quick test before any list: a view with no more local commits than a slice stores in one write.
    if (chain.length - 2 <= step || view.chunks.length - 1 <= step) return null;
    // Long enough to look for a run of slices (only after more local commits than a slice stores): tab-merge.ts does it.
    const merge = await loadTabMerge();
    return merge.storeSlices(tabMergeKit, this.#o, chain, step, this.#maybeStored);
  }

  /**
   * Chunks that slice writes stored and no write of the client head took
   * in: the refresh head may let go of them (its next move collects them),
   * so later writes put them with their stored count read.
   */
  #mayHaveStored(hashes: Iterable<Hash>): void {
    for (const hash of hashes) this.#maybeStored.add(hash);
  }

  /**
   * Whether moving the group head from `from` to `to` leaves a chain long
   * enough to be collected in slices. A chain holding `from`'s head holds the
   * commits below it before it, down to `from`'s snapshot, which only a
   * chain's first place holds: the head is in `to`'s chain at the place it has
   * in its own or not at all (one look, not a search of a long backlog).
   */
  #dropsLongChain(from: HeadInfo, to: HeadInfo): boolean {
    return from.chain.length > this.#sliceCommits() && to.chain[from.chain.length - 1] !== from.hash;
  }

  #sliceCommits(): number {
    return Math.max(1, this.#o.releaseSliceCommits ?? SLICE_COMMITS);
  }

  /** `merge`: read down to the view's own commits only (its stored ones are not read back: a long backlog is one read each). */
  async #describe(hash: Hash, merge?: typeof import('./tab-merge')): Promise<HeadInfo> {
    const { db, memdag } = this.#o;
    const chain = await memdag.withRead(async (dag) => {
      const head = await readCommit(dag, hash);
      return merge === undefined ? readChainOf(dag, head) : merge.readChainKnowing(tabMergeKit, dag, head, () => [merge.viewChain(tabMergeKit, db, dag)]);
    });
    return describeChain(chain);
  }
}

/** A local commit without its trees (below a head): its only ref is its basis. */
function isBareLocalCommit(chunk: Chunk): boolean {
  if (chunk.refs.length !== 1) return false;
  const data = chunk.data as unknown as CommitData;
  return typeof data === 'object' && data !== null && !Array.isArray(data) && data.type === 'local' && chunk.refs[0] === data.basisHash;
}

/** A local commit below the heads being stored, as stored: without its trees. Any other chunk as it is. */
function storedForm(chunk: Chunk, heads: ReadonlySet<Hash>): Chunk {
  const data = chunk.data as unknown as CommitData;
  if (heads.has(chunk.hash) || typeof data !== 'object' || data === null || Array.isArray(data) || data.type !== 'local') return chunk;
  // Already without its trees (a commit below the head in memory): itself, not a copy per pending mutation.
  if (chunk.refs.length === 1 && chunk.refs[0] === data.basisHash) return chunk;
  return { hash: chunk.hash, data: chunk.data, refs: [data.basisHash] };
}

function describeChain(chain: Chain): HeadInfo {
  const { cookie, lastMutationIDs } = chain.snapshot.data;
  const hashes = [chain.snapshot.hash, ...chain.locals.map((c) => c.hash)];
  return describePending(hashes, chain.head.data.valueHash, cookie, lastMutationIDs, chain.locals.map((c) => ({ clientID: c.data.clientID, id: c.data.mutationID })));
}

/** `mutations`: the head's local mutations; those the snapshot acknowledges are not pending. */
function describePending(
  chain: readonly Hash[],
  root: Hash,
  cookie: SnapshotCommitData['cookie'],
  acked: Readonly<Record<string, number>>,
  mutations: readonly { readonly clientID: string; readonly id: number }[],
): HeadInfo {
  const lastIDs: Record<string, number> = { ...acked };
  const pending = new Map<string, number[]>();
  for (const { clientID, id } of mutations) {
    if (id <= (acked[clientID] ?? 0)) continue;
    let ids = pending.get(clientID);
    if (ids === undefined) pending.set(clientID, (ids = []));
    ids.push(id);
    lastIDs[clientID] = Math.max(lastIDs[clientID] ?? 0, id);
  }
  // A chain holds each client's mutations in id order; sorted anyway, for the walk in addsNothing.
  for (const ids of pending.values()) if (!isIncreasing(ids)) ids.sort((a, b) => a - b);
  return { hash: chain.at(-1)!, cookie, acked, pending, lastIDs, chain, root };
}

/** Whether `next` would add nothing to `current`: the same server state and no pending mutation more. */
function addsNothing(next: HeadInfo, current: HeadInfo): boolean {
  if (next.hash === current.hash) return true;
  if (compareCookies(next.cookie, current.cookie) !== 0) return false;
  for (const [clientID, ids] of next.pending) if (!includesAllIDs(current.pending.get(clientID) ?? [], ids)) return false;
  return true;
}

function isIncreasing(ids: readonly number[]): boolean {
  for (let i = 1; i < ids.length; i++) if (ids[i]! <= ids[i - 1]!) return false;
  return true;
}

/** Whether the increasing list `all` holds every id of the increasing list `some`. */
function includesAllIDs(all: readonly number[], some: readonly number[]): boolean {
  let i = 0;
  for (const id of some) {
    while (i < all.length && all[i]! < id) i++;
    if (all[i] !== id) return false;
  }
  return true;
}

/** The group record for a new head: its mutation ids, and what the server acknowledged (never less than recorded). */
function groupRecordFor(head: HeadInfo, group: ClientGroupRecord): ClientGroupRecord {
  return {
    ...group,
    headHash: head.hash,
    mutationIDs: maxByClient(group.mutationIDs, head.lastIDs),
    lastServerAckdMutationIDs: maxByClient(group.lastServerAckdMutationIDs, head.acked),
  };
}

function maxByClient(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = { ...a };
  for (const [clientID, id] of Object.entries(b)) out[clientID] = Math.max(out[clientID] ?? 0, id);
  return out;
}
