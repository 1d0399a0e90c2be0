import type { DagWrite } from '../dag/types';
import type { ChangeMap } from './change-set';
import type { Commit, LocalCommitData, SnapshotCommitData } from './commit';
import type { DbContext } from './db-context';
import { replayInputOf, replayMutations } from './mutation-runner';
import type { MutatorDefs } from './transaction-types';

export interface RebaseResult {
  readonly head: Commit;
  /** The replayed commits, oldest first. */
  readonly locals: Commit<LocalCommitData>[];
  /** What each replayed commit wrote, by its hash. */
  readonly written: Map<string, ChangeMap>;
}

/**
 * Replays, in order, the local commits the snapshot has not acknowledged on
 * top of it, with reason 'rebase'. Acknowledged ones are dropped.
 */
export async function rebaseLocals(
  dag: DagWrite,
  snapshot: Commit<SnapshotCommitData>,
  locals: readonly Commit<LocalCommitData>[],
  mutatorFor: (name: string) => MutatorDefs[string] | undefined,
  ctx: DbContext,
): Promise<RebaseResult> {
  const acked = snapshot.data.lastMutationIDs;
  const inputs = locals
    .filter((local) => local.data.mutationID > (acked[local.data.clientID] ?? 0))
    .map(replayInputOf);
  const replayed = await replayMutations(dag, snapshot, inputs, mutatorFor, ctx);
  const written = new Map<string, ChangeMap>();
  for (const r of replayed) written.set(r.commit.hash, r.changes);
  return { head: replayed.at(-1)?.commit ?? snapshot, locals: replayed.map((r) => r.commit), written };
}
