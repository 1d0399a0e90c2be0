import type { DagWrite } from '../dag/types';
import type { Commit } from './commit';

export function basisPinName(headName: string): string {
  return `${headName}/basis`;
}

/**
 * Moves `headName` to `commit`, and a second head to the commit's basis.
 *
 * The second head is only there for the dag's ref counting (as of dag commit
 * 355ccfb): when a head moves to a child of its old target, the old target
 * drops to zero for one round before the child's reference reaches it, and
 * the walk that follows goes down the whole chain of pending commits, which
 * made every mutation cost linear in the number of pending ones. Holding the
 * basis with a head keeps its count above zero. Drop this once the dag
 * settles such counts before following them.
 */
export async function moveHeadTo(dag: DagWrite, headName: string, commit: Commit): Promise<void> {
  await dag.setHead(headName, commit.hash);
  const basis = commit.data.basisHash;
  if (basis === null) await dag.removeHead(basisPinName(headName));
  else await dag.setHead(basisPinName(headName), basis);
}
