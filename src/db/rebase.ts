import type { DagWrite } from '../dag/types';
import type { ChangeMap } from './change-set';
import type { Commit, LocalCommitData, SnapshotCommitData } from './commit';
import type { DbContext } from './db-context';
import { runMutation } from './mutation-runner';
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
  let head: Commit = snapshot;
  const out: Commit<LocalCommitData>[] = [];
  const written = new Map<string, ChangeMap>();
  for (const local of locals) {
    const d = local.data;
    if (d.mutationID <= (acked[d.clientID] ?? 0)) continue;
    const input = {
      name: d.mutatorName,
      args: d.mutatorArgs,
      clientID: d.clientID,
      mutationID: d.mutationID,
      timestamp: d.timestamp,
      originalHash: local.hash,
    };
    const r = await runMutation(dag, head, input, mutatorFor(d.mutatorName), 'rebase', ctx);
    out.push(r.commit);
    written.set(r.commit.hash, r.changes);
    head = r.commit;
  }
  return { head, locals: out, written };
}
