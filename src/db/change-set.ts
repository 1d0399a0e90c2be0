import type { ReadonlyJSONValue } from '../../protocol/json';
import type { DiffOp } from '../btree/types';
import { indexKeysFor, type CompiledIndex } from './index-definition';
import { deepEqualJSON } from './json-value';
import type { KeyCompare } from './scan-options';

/** Old and new value of one primary key across a change. */
export interface KeyChange {
  readonly oldValue: ReadonlyJSONValue | undefined;
  newValue: ReadonlyJSONValue | undefined;
}

/** Primary-key changes, possibly including keys whose value ended up equal. */
export type ChangeMap = Map<string, KeyChange>;

/** The exact changes of one commit to the primary map, in key order. */
export function toDiff(changes: ChangeMap, compare: KeyCompare): DiffOp[] {
  const out: DiffOp[] = [];
  // (forEach, then the operations sorted: no iterator, key array or lookup per key while code is cold.)
  changes.forEach(({ oldValue, newValue }, key) => {
    if (oldValue === undefined) {
      if (newValue !== undefined) out.push({ op: 'add', key, newValue });
    } else if (newValue === undefined) {
      out.push({ op: 'del', key, oldValue });
    } else if (!deepEqualJSON(oldValue, newValue)) {
      out.push({ op: 'change', key, oldValue, newValue });
    }
  });
  if (out.length > 1) out.sort((a, b) => compare(a.key, b.key));
  return out;
}

/** The changes an index map went through, derived from the primary diff. */
export function indexDiff(index: CompiledIndex, diff: readonly DiffOp[], compare: KeyCompare): DiffOp[] {
  const byKey = new Map<string, { oldValue?: ReadonlyJSONValue; newValue?: ReadonlyJSONValue }>();
  const keysOf = (key: string, v: ReadonlyJSONValue) => {
    try {
      return indexKeysFor(index, key, v);
    } catch {
      return [];
    }
  };
  for (const d of diff) {
    if (d.op !== 'add') for (const k of keysOf(d.key, d.oldValue)) byKey.set(k, { oldValue: d.oldValue });
    if (d.op !== 'del') {
      for (const k of keysOf(d.key, d.newValue)) {
        const e = byKey.get(k);
        if (e) e.newValue = d.newValue;
        else byKey.set(k, { newValue: d.newValue });
      }
    }
  }
  const out: DiffOp[] = [];
  for (const key of [...byKey.keys()].sort(compare)) {
    const { oldValue, newValue } = byKey.get(key)!;
    if (oldValue === undefined) out.push({ op: 'add', key, newValue: newValue! });
    else if (newValue === undefined) out.push({ op: 'del', key, oldValue });
    else if (!deepEqualJSON(oldValue, newValue)) out.push({ op: 'change', key, oldValue, newValue });
  }
  return out;
}
