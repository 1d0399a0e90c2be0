import type { DagWrite, Hash } from '../dag/types';
import type { PendingMutation } from '../sync/server-update';
import type { ChangeMap } from './change-set';
import type { Commit, LocalCommitData, SnapshotCommitData } from './commit';
import type { DbContext } from './db-context';
import { replayMutations, type MutationInput } from './mutation-runner';
import type { MutatorDefs } from './transaction-types';

export interface RebaseResult {
  readonly head: Commit;
  /** The replayed commits, oldest first. */
  readonly locals: Commit<LocalCommitData>[];
  /** What each replayed commit wrote, by its hash. */
  readonly written: Map<string, ChangeMap>;
}

/** A head's local commits as the database keeps them (Database.headLocals): hashes and mutations, oldest first. */
export interface LocalChain {
  readonly hashes: readonly Hash[];
  readonly mutations: readonly PendingMutation[];
}

/**
 * Replays, in order, the local commits the snapshot has not acknowledged on
 * top of it, with reason 'rebase'. Acknowledged ones are dropped. Taken from
 * the lists the database keeps, not read from the dag: a sync that
 * acknowledges most of a 100,000-mutation backlog reads none of its commits.
 */
export async function rebaseLocals(
  dag: DagWrite,
  snapshot: Commit<SnapshotCommitData>,
  locals: LocalChain,
  mutatorFor: (name: string) => MutatorDefs[string] | undefined,
  ctx: DbContext,
): Promise<RebaseResult> {
  const acked = snapshot.data.lastMutationIDs;
  const inputs: MutationInput[] = [];
  const { hashes, mutations } = locals;
  for (let i = 0; i < mutations.length; i++) {
    const m = mutations[i]!;
    if (m.id <= (acked[m.clientID] ?? 0)) continue;
    inputs.push({ name: m.name, args: m.args, clientID: m.clientID, mutationID: m.id, timestamp: m.timestamp, originalHash: hashes[i]! });
  }
  const replayed = await replayMutations(dag, snapshot, inputs, mutatorFor, ctx);
  const written = new Map<string, ChangeMap>();
  for (const r of replayed) written.set(r.commit.hash, r.changes);
  return { head: replayed.at(-1)?.commit ?? snapshot, locals: replayed.map((r) => r.commit), written };
}
