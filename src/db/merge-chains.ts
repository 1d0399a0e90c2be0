/**
 * Merging two views of one client group: this tab's head and the head another
 * tab stored. Each is a server snapshot with pending local commits on top. The
 * merge keeps one snapshot (the newer one, unless told to keep ours) and every
 * pending mutation of both that it does not acknowledge, each once: the base
 * chain's own pending first, then the other's extras. Mutations of one client
 * stay in id order. Only what does not already sit on the base chain is
 * replayed (rebased with its mutator); when nothing needs replaying the base
 * head is the result as is.
 */
import type { DagRead, DagWrite, Hash } from '../dag/types';
import { hasTrees, readChain, type ChainBelow, type Commit, type LocalCommitData, type SnapshotCommitData } from './commit';
import { compareCookies } from './cookie-order';
import type { DbContext } from './db-context';
import { replayInputOf, replayMutations } from './mutation-runner';
import type { MutatorDefs } from './transaction-types';

export interface Chain {
  readonly head: Commit;
  readonly snapshot: Commit<SnapshotCommitData>;
  /** Pending local commits on top of the snapshot, oldest first. */
  readonly locals: readonly Commit<LocalCommitData>[];
}

export interface MergePlan {
  /** Whose snapshot the result sits on. */
  readonly base: 'ours' | 'theirs';
  /** How many of the base chain's local commits stay as they are. */
  readonly keep: number;
  /** What is replayed on top of them, in order. */
  readonly replay: readonly Commit<LocalCommitData>[];
}

/** `known`: see readChain. */
export async function readChainOf(dag: DagRead, head: Commit, known?: (hash: Hash) => ChainBelow | undefined): Promise<Chain> {
  const { snapshot, locals } = await readChain(dag, head, known);
  return { head, snapshot, locals };
}

const mutationKey = (c: Commit<LocalCommitData>) => `${c.data.clientID}\u0000${c.data.mutationID}`;

/**
 * Decides the merge. `keepOurSnapshot`: stay on our snapshot even when theirs
 * is newer (a connected tab follows its own socket's pokes, whose base cookie
 * must stay its own).
 */
export function planMerge(ours: Chain, theirs: Chain, keepOurSnapshot = false): MergePlan {
  const order = compareCookies(ours.snapshot.data.cookie, theirs.snapshot.data.cookie);
  let base: 'ours' | 'theirs';
  if (keepOurSnapshot || order > 0) base = 'ours';
  else if (order < 0) base = 'theirs';
  // The same server state: the stored chain when it holds all of ours (nothing to replay, nothing kept twice in memory).
  else base = includesAll(theirs.locals, ours.locals) || !includesAll(ours.locals, theirs.locals) ? 'theirs' : 'ours';
  const [first, second] = base === 'ours' ? [ours, theirs] : [theirs, ours];
  const acked = first.snapshot.data.lastMutationIDs;
  const seen = new Set<string>();
  const merged: Commit<LocalCommitData>[] = [];
  for (const c of [...first.locals, ...second.locals]) {
    const key = mutationKey(c);
    if (seen.has(key) || c.data.mutationID <= (acked[c.data.clientID] ?? 0)) continue;
    seen.add(key);
    merged.push(c);
  }
  const ordered = inClientOrder(merged);
  let keep = 0;
  // Base commits stay up to the first one that no longer sits where it did.
  while (keep < first.locals.length && keep < ordered.length && ordered[keep] === first.locals[keep]) keep++;
  return { base, keep, replay: ordered.slice(keep) };
}

/** Whether the plan keeps the base head as it is. */
export function isNoOp(plan: MergePlan, ours: Chain, theirs: Chain): boolean {
  const first = plan.base === 'ours' ? ours : theirs;
  return plan.replay.length === 0 && plan.keep === first.locals.length;
}

/** Carries the plan out in `dag`: replays onto the base chain and returns the new head (not yet a head of the dag). */
export async function applyMergePlan(
  dag: DagWrite,
  plan: MergePlan,
  ours: Chain,
  theirs: Chain,
  mutatorFor: (name: string) => MutatorDefs[string] | undefined,
  ctx: DbContext,
): Promise<Commit> {
  const first = plan.base === 'ours' ? ours : theirs;
  let keep = plan.keep;
  // A commit stored without its trees (below the head it was stored under) cannot be built on: replay it too.
  while (keep > 0 && !(await hasTrees(dag, first.locals[keep - 1]!))) keep--;
  const base: Commit = keep === 0 ? first.snapshot : first.locals[keep - 1]!;
  const inputs = [...first.locals.slice(keep, plan.keep), ...plan.replay].map(replayInputOf);
  return (await replayMutations(dag, base, inputs, mutatorFor, ctx)).at(-1)?.commit ?? base;
}

/** Whether `all` holds every mutation of `some`. */
function includesAll(all: readonly Commit<LocalCommitData>[], some: readonly Commit<LocalCommitData>[]): boolean {
  const keys = new Set(all.map(mutationKey));
  return some.every((c) => keys.has(mutationKey(c)));
}

/**
 * Keeps where each client's mutations sit in the list but puts them in id
 * order there, so a client's mutations are never replayed (or pushed) out of order.
 */
function inClientOrder(list: readonly Commit<LocalCommitData>[]): Commit<LocalCommitData>[] {
  const byClient = new Map<string, Commit<LocalCommitData>[]>();
  for (const c of list) {
    let own = byClient.get(c.data.clientID);
    if (own === undefined) byClient.set(c.data.clientID, (own = []));
    own.push(c);
  }
  const cursors = new Map<string, number>();
  for (const own of byClient.values()) own.sort((a, b) => a.data.mutationID - b.data.mutationID);
  return list.map((c) => {
    const i = cursors.get(c.data.clientID) ?? 0;
    cursors.set(c.data.clientID, i + 1);
    return byClient.get(c.data.clientID)![i]!;
  });
}
