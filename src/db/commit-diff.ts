import type { DiffOp } from '../btree/types';
import type { DagRead } from '../dag/types';
import { toDiff, type ChangeMap } from './change-set';
import type { CommitData } from './commit';
import type { DbContext } from './db-context';

/**
 * The primary-map changes from one commit to another. With the set of keys
 * that can differ, only those are compared; with 'all', the trees are diffed.
 */
export async function diffCommits(
  dag: DagRead,
  from: CommitData,
  to: CommitData,
  candidates: ReadonlySet<string> | 'all',
  ctx: DbContext,
): Promise<DiffOp[]> {
  if (from.valueHash === to.valueHash) return [];
  const a = ctx.readTree(dag, from.valueHash);
  const b = ctx.readTree(dag, to.valueHash);
  if (candidates === 'all') return a.diff(b);
  const changes: ChangeMap = new Map();
  for (const key of candidates) changes.set(key, { oldValue: await a.get(key), newValue: await b.get(key) });
  return toDiff(changes, ctx.compare);
}
