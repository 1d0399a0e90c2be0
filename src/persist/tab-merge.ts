/**
 * The parts of a tab's sync (tab-sync.ts) that run only when another tab of
 * the group exists, or when a tab's backlog is long: taking in a group head
 * another tab moved, merging the view with it, and storing or letting go of
 * a long chain a slice of commits at a time. A single tab stores its view
 * over the group head it last merged and never needs them, so they are a
 * chunk of their own that the first such sync loads with import(). What they
 * use of the start-up code comes in a TabMergeKit (tab-sync.ts), not by
 * import, so that no start-up code moves into a chunk shared with this one
 * (store-kit.ts says why that costs more than it saves).
 */
import type { Chunk, DagRead, Hash } from '../dag/types';
import type { Commit, CommitData, LocalCommitData } from '../db/commit';
import type { Database } from '../db/database';
import type { Chain } from '../db/merge-chains';
import type { TabMergeKit, TabSyncOptions } from './tab-sync';

/** Holds a merged head in the memory dag until it is stored, so the memory dag does not collect it. */
export const MERGE_HEAD = 'merge';

/** Marks the group's current head as being read by this client; returns it. */
export function protectGroupHead(kit: TabMergeKit, o: TabSyncOptions): Promise<Hash | 'client-state-not-found'> {
  return holdInRefreshHead(kit, o, (groupHead) => groupHead);
}

/**
 * The last sync of a closed view that adds nothing to the group head: it only
 * lets go of what the client's refresh head still holds (a refresh or a
 * release in slices cut short), which would otherwise stay until the client
 * is collected.
 */
export async function closeUnchanged(kit: TabMergeKit, o: TabSyncOptions): Promise<'synced' | 'client-state-not-found'> {
  return (await holdInRefreshHead(kit, o, () => null)) === 'client-state-not-found' ? 'client-state-not-found' : 'synced';
}

/** Sets the client's refresh head to what `held` picks, given the group's head (written only if it changes); returns the group's head. */
function holdInRefreshHead(kit: TabMergeKit, o: TabSyncOptions, held: (groupHead: Hash) => Hash | null): Promise<Hash | 'client-state-not-found'> {
  const { clientID, clientGroupID } = o;
  return o.perdag.withWrite(async (w) => {
    const [client, group] = await Promise.all([kit.readClient(w, clientID), kit.readGroup(w, clientGroupID)]);
    if (client === undefined || group === undefined || group.disabled) return 'client-state-not-found';
    const tempRefreshHash = held(group.headHash);
    if (client.tempRefreshHash !== tempRefreshHash) {
      await kit.writeClient(w, clientID, { ...client, tempRefreshHash }, client);
      await w.commit();
    }
    return group.headHash;
  });
}

/** Merges the group head `head` (protected) into the view. */
export async function refresh(kit: TabMergeKit, o: TabSyncOptions, head: Hash, gatherBytes: number): Promise<void> {
  const { db, memdag } = o;
  // Not this view's own commits below its head: it knows them (viewChain), and a long stored backlog is one read each.
  let own: Set<Hash> | undefined;
  await memdag.prefetch(head, gatherBytes, (hash) => (own ??= new Set(db.headLocals().hashes)).has(hash));
  await db.syncLock.run(() =>
    db.transformHead(
      async (dag, ours) => {
        // Another tab's head builds on this tab's stored commits: read down to them only.
        const theirs = await readChainKnowing(kit, dag, await kit.readCommit(dag, head), () => [ours]);
        const plan = kit.planMerge(ours, theirs, o.keepOwnSnapshot());
        if (kit.isNoOp(plan, ours, theirs)) return plan.base === 'ours' ? undefined : theirs;
        const merged = await kit.applyMergePlan(dag, plan, ours, theirs, (name) => db.mutatorFor(name), db.ctx);
        return readChainKnowing(kit, dag, merged, () => [ours, theirs]);
      },
      (dag) => viewChain(kit, db, dag),
    ),
  );
}

/**
 * Merges the view (head `view`) with the group head `group` in the memory
 * dag: which of the two already is the merge, or the merged chain, held by
 * MERGE_HEAD until the caller has stored it and removes that head.
 */
export async function mergeWithGroup(kit: TabMergeKit, o: TabSyncOptions, view: Hash, group: Hash): Promise<'ours' | 'theirs' | Chain> {
  const { db } = o;
  return o.memdag.withWrite(async (dag) => {
    // The view's chain from the database's lists (no read of its stored commits), the others read down to them only.
    const ours = db.headCommit.hash === view ? viewChain(kit, db, dag) : await kit.readChainOf(dag, await kit.readCommit(dag, view));
    const theirs = await readChainKnowing(kit, dag, await kit.readCommit(dag, group), () => [ours]);
    const plan = kit.planMerge(ours, theirs);
    if (kit.isNoOp(plan, ours, theirs)) return plan.base;
    const merged = await kit.applyMergePlan(dag, plan, ours, theirs, (name) => db.mutatorFor(name), db.ctx);
    const chain = await readChainKnowing(kit, dag, merged, () => [ours, theirs]);
    await dag.setHead(MERGE_HEAD, merged.hash);
    await dag.commit();
    return chain;
  });
}

/**
 * The view's chain without a read of the store: its head and snapshot as
 * they are, each local commit below the head as found in memory, else
 * described from the database's lists (headLocals) as stored: without its
 * trees (UNKEPT_TREE; a merge replays such a commit rather than build on it).
 * After a store, those commits leave memory (TabSync's persisted), and a
 * read of each, one after the other, was most of a merge after a long backlog.
 */
export function viewChain(kit: TabMergeKit, db: Database, dag: DagRead): Chain {
  const head = db.headCommit;
  const snapshot = db.snapshotCommit;
  const { hashes, mutations } = db.headLocals();
  const locals: Commit<LocalCommitData>[] = [];
  const last = hashes.length - 1;
  for (let i = 0; i < last; i++) {
    const hash = hashes[i]!;
    const chunk = dag.peekChunk?.(hash);
    if (chunk !== undefined) {
      locals.push(chunk as unknown as Commit<LocalCommitData>);
      continue;
    }
    const m = mutations[i]!;
    const input = { name: m.name, args: m.args, clientID: m.clientID, mutationID: m.id, timestamp: m.timestamp, originalHash: null };
    locals.push({ hash, data: kit.localCommitData(input, i === 0 ? snapshot.hash : hashes[i - 1]!, kit.UNKEPT_TREE, []) });
  }
  if (last >= 0) locals.push(head as Commit<LocalCommitData>);
  return { head, snapshot, locals };
}

/**
 * The chain of `head`, read from the dag only down to a commit of one of the
 * `known` chains (whose chain below it is that chain's): another tab's head,
 * which builds on this tab's stored commits, reads none of them back.
 * readChain's walk (commits at hand are read without a promise each);
 * `known` is asked for (once) and its commits looked up by hash only before
 * a read of the store.
 */
export async function readChainKnowing(kit: TabMergeKit, dag: DagRead, head: Commit, known: () => readonly Chain[]): Promise<Chain> {
  let where: Map<Hash, { readonly chain: Chain; readonly at: number }> | undefined;
  return kit.readChainOf(dag, head, (hash) => {
    if (where === undefined) {
      where = new Map();
      for (const chain of known()) {
        where.set(chain.snapshot.hash, { chain, at: -1 });
        for (let at = 0; at < chain.locals.length; at++) where.set(chain.locals[at]!.hash, { chain, at });
      }
    }
    const found = where.get(hash);
    return found === undefined ? undefined : { snapshot: found.chain.snapshot, locals: found.chain.locals.slice(0, found.at + 1) };
  });
}

export async function dropMergeHead(o: TabSyncOptions): Promise<void> {
  await o.memdag.withWrite(async (dag) => {
    await dag.removeHead(MERGE_HEAD);
    await dag.commit();
  });
}

/**
 * Stores the oldest of the view's local commits that are only in memory a
 * slice of `step` commits per write, ahead of the write of the view (see
 * TabSync's storeSlices for what and when); `chain` is the view's chain,
 * snapshot first. `maybeStored`: chunks an earlier write may have stored
 * (put with their stored count read); a slice whose write failed joins them.
 * Returns the slices stored (null if none): their newest commit and their hashes.
 */
export async function storeSlices(
  kit: TabMergeKit,
  o: TabSyncOptions,
  chain: readonly Hash[],
  step: number,
  maybeStored: Set<Hash>,
): Promise<{ readonly top: Hash; readonly hashes: ReadonlySet<Hash> } | null> {
  const { memdag } = o;
  // The run: local commits below the head, memory-only and as stored (refs: their basis alone), the oldest on a
  // stored commit. Read from the memory dag by hash (no map of the view's chunks): a commit gone from memory
  // since the view was captured (or stored meanwhile) ends the run.
  const run: Chunk[] = [];
  for (let i = chain.length - 2; i >= 1; i--) {
    const hash = chain[i]!;
    const chunk = memdag.isMemoryOnly(hash) ? memdag.memoryChunk(hash) : undefined;
    if (chunk === undefined || chunk.refs.length !== 1 || chunk.refs[0] !== chain[i - 1]) break;
    const data = chunk.data as unknown as CommitData;
    if (data === null || typeof data !== 'object' || Array.isArray(data) || data.type !== 'local') break;
    run.push(chunk);
  }
  run.reverse();
  // The oldest commit of the run must build on a chunk the store holds (not a memory-only one).
  if (run.length <= step || memdag.isMemoryOnly(run[0]!.refs[0]!)) return null;
  const { perdag, clientID } = o;
  const hashes = new Set<Hash>();
  let held: Hash | null = null;
  try {
    for (let start = 0; start + step <= run.length; start += step) {
      const slice = run.slice(start, start + step);
      const top = slice.at(-1)!.hash;
      const before: Hash | null = held;
      const moved = await perdag.withWrite(async (w) => {
        const client = await kit.readClient(w, clientID);
        if (client === undefined || client.tempRefreshHash !== before) return false;
        // A chunk no earlier write of this client may have stored is put as new: no read of a count it cannot have.
        for (const chunk of slice) await (maybeStored.has(chunk.hash) ? w.putChunk(chunk) : w.putNewChunk(chunk));
        await kit.writeClient(w, clientID, { ...client, tempRefreshHash: top }, client);
        try {
          await w.commit();
        } catch (error) {
          // The store may or may not hold the slice now.
          for (const chunk of slice) maybeStored.add(chunk.hash);
          throw error;
        }
        return true;
      });
      if (!moved) break;
      held = top;
      for (const chunk of slice) hashes.add(chunk.hash);
    }
  } catch (error) {
    for (const hash of hashes) maybeStored.add(hash);
    throw error;
  }
  return held === null ? null : { top: held, hashes };
}

/**
 * Lets go of `chain` (snapshot first, head last), which this client's
 * refresh head holds at its head: the refresh head steps down the chain
 * `step` commits per write (each write collects the commits it left, if
 * nothing else holds them: ref counts decide, as ever), then goes. Stops
 * (the next sync or the client's collection lets go of the rest at once)
 * if the refresh head is not where this left it, the client is gone, or a
 * commit of the chain is not stored.
 */
export async function releaseInSlices(kit: TabMergeKit, o: TabSyncOptions, chain: readonly Hash[], step: number): Promise<void> {
  const { perdag, clientID } = o;
  let held = chain.at(-1)!;
  for (let next = chain.length - 1 - step; ; next -= step) {
    const target = next > 0 ? chain[next]! : null;
    const moved = await perdag.withWrite(async (w) => {
      const client = await kit.readClient(w, clientID);
      if (client === undefined || client.tempRefreshHash !== held) return false;
      const to = target !== null && (await w.hasChunk(target)) ? target : null;
      await kit.writeClient(w, clientID, { ...client, tempRefreshHash: to }, client);
      await w.commit();
      return to;
    });
    if (moved === false || moved === null) return;
    held = moved;
  }
}
