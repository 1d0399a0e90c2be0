import type { DiffOp } from '../btree/types';
import { indexDiff } from './change-set';
import type { CompiledIndex } from './index-definition';
import type { KeyCompare } from './scan-options';
import type { StoreChange } from './subscriptions';

/** A commit's change; index diffs are derived from the primary diff on first use. */
export function makeStoreChange(
  diff: readonly DiffOp[],
  indexes: ReadonlyMap<string, CompiledIndex>,
  compare: KeyCompare,
): StoreChange {
  // Made at the first index diff asked for: most changes are never asked one (no index watcher or subscription).
  let memo: Map<string, readonly DiffOp[]> | undefined;
  return {
    diff,
    indexDiff(name) {
      let d = (memo ??= new Map()).get(name);
      if (d === undefined) {
        const ix = indexes.get(name);
        d = ix === undefined || diff.length === 0 ? [] : indexDiff(ix, diff, compare);
        memo.set(name, d);
      }
      return d;
    },
  };
}
