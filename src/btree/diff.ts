/**
 * The changes between two trees, skipping shared subtrees by hash.
 *
 * Both trees are walked top-down in lock step, one level at a time, keeping a
 * frontier of subtrees for each side. A hash present in both frontiers is the
 * same subtree with the same entries on both sides, so it is dropped from both
 * without being loaded. What is left at the leaves is merged by key.
 */
import type { ReadonlyJSONValue } from '../../protocol/json';
import { compareUTF8 } from './compare';
import { jsonEqual } from './json-equal';
import type { Child, InternalEntry, Node } from './node';
import type { DiffOp, Entry } from './types';

export interface DiffSide {
  readonly root: Child;
  load(child: Child): Promise<Node>;
}

interface Item {
  readonly child: Child;
  readonly level: number;
  /** The loaded node, when we already have it. */
  node?: Node;
}

export async function diffTrees(a: DiffSide, b: DiffSide): Promise<DiffOp[]> {
  if (a.root === b.root) return [];
  const [ra, rb] = await Promise.all([a.load(a.root), b.load(b.root)]);
  let fa: Item[] = [{ child: a.root, level: ra.level, node: ra }];
  let fb: Item[] = [{ child: b.root, level: rb.level, node: rb }];
  for (;;) {
    [fa, fb] = dropShared(fa, fb);
    let top = 0;
    for (const it of fa) if (it.level > top) top = it.level;
    for (const it of fb) if (it.level > top) top = it.level;
    if (top === 0) break;
    [fa, fb] = await Promise.all([expand(a, fa, top), expand(b, fb, top)]);
  }
  const [la, lb] = await Promise.all([leaves(a, fa), leaves(b, fb)]);
  return mergeDiff(la, lb);
}

function dropShared(fa: Item[], fb: Item[]): [Item[], Item[]] {
  const inA = new Set<string>();
  for (const it of fa) if (typeof it.child === 'string') inA.add(it.child);
  const shared = new Set<string>();
  for (const it of fb) if (typeof it.child === 'string' && inA.has(it.child)) shared.add(it.child);
  if (shared.size === 0) return [fa, fb];
  const keep = (it: Item) => typeof it.child !== 'string' || !shared.has(it.child);
  return [fa.filter(keep), fb.filter(keep)];
}

async function expand(side: DiffSide, items: Item[], level: number): Promise<Item[]> {
  const nodes = await Promise.all(items.map((it) => (it.level === level ? (it.node ?? side.load(it.child)) : undefined)));
  const out: Item[] = [];
  for (let i = 0; i < items.length; i++) {
    const node = nodes[i];
    if (node === undefined) {
      out.push(items[i]!);
      continue;
    }
    for (const [, child] of node.entries as readonly InternalEntry[]) out.push({ child, level: level - 1 });
  }
  return out;
}

async function leaves(side: DiffSide, items: Item[]): Promise<(readonly Entry[])[]> {
  const nodes = await Promise.all(items.map((it) => it.node ?? side.load(it.child)));
  return nodes.map((n) => n.entries as readonly Entry[]);
}

/** Merges two key-ordered runs of entries (each given as a list of leaves) into diff ops. */
export function mergeDiff(a: readonly (readonly Entry[])[], b: readonly (readonly Entry[])[]): DiffOp[] {
  const out: DiffOp[] = [];
  let ai = 0;
  let aj = 0;
  let bi = 0;
  let bj = 0;
  const peekA = (): Entry | undefined => {
    while (ai < a.length && aj >= a[ai]!.length) {
      ai++;
      aj = 0;
    }
    return ai < a.length ? a[ai]![aj] : undefined;
  };
  const peekB = (): Entry | undefined => {
    while (bi < b.length && bj >= b[bi]!.length) {
      bi++;
      bj = 0;
    }
    return bi < b.length ? b[bi]![bj] : undefined;
  };
  for (;;) {
    const x = peekA();
    const y = peekB();
    if (x === undefined && y === undefined) return out;
    const c = x === undefined ? 1 : y === undefined ? -1 : compareUTF8(x[0], y[0]);
    if (c < 0) {
      out.push({ op: 'del', key: x![0], oldValue: x![1] });
      aj++;
    } else if (c > 0) {
      out.push({ op: 'add', key: y![0], newValue: y![1] });
      bj++;
    } else {
      if (!jsonEqual(x![1], y![1])) out.push(change(x![0], x![1], y![1]));
      aj++;
      bj++;
    }
  }
}

function change(key: string, oldValue: ReadonlyJSONValue, newValue: ReadonlyJSONValue): DiffOp {
  return { op: 'change', key, oldValue, newValue };
}
