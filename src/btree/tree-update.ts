/**
 * Applies a sorted batch of puts and deletes to a tree, rebuilding only the
 * paths the batch touches. Changed nodes come back as MemNodes, cut by size
 * (partition.ts); a changed node that fell under the minimum is merged with a
 * neighbour; the root grows a level when it splits and loses one when it is
 * left with a single child. Unchanged subtrees are kept by hash.
 */
import { BTREE_MAX_NODE_BYTES, BTREE_MIN_NODE_BYTES } from '../../protocol/constants';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { compareUTF8 } from './compare';
import {
  MemNode,
  emptyLeaf,
  entrySize,
  internalEntrySize,
  leafEntrySize,
  nodeSize,
  nodeSizeOf,
  type Child,
  type InternalEntry,
  type Node,
  type NodeEntry,
} from './node';
import { partition } from './partition';
import type { Entry } from './types';

export const DELETED = Symbol('deleted');
export type Op = readonly [key: string, value: ReadonlyJSONValue | typeof DELETED];
export type LoadNode = (child: Child) => Promise<Node>;

const NODE_OVERHEAD_BYTES = nodeSizeOf(0, []);

/** `ops` sorted by key, without duplicates. Returns the new root. */
export async function updateTree(load: LoadNode, root: Child, ops: readonly Op[]): Promise<Child> {
  const rootNode = await load(root);
  let nodes = await updateNode(load, rootNode, ops, 0, ops.length);
  if (nodes.length === 0) return emptyLeaf();
  let level = rootNode.level;
  while (nodes.length > 1) {
    level++;
    nodes = cut(
      level,
      nodes.map((n) => [lastKey(n), childOf(n)] as const),
    );
  }
  let top = nodes[0]!;
  while (top.level > 0 && top.entries.length === 1) top = await load(top.entries[0]![1] as Child);
  return childOf(top);
}

function childOf(node: Node): Child {
  return node.hash ?? (node as MemNode);
}

function lastKey(node: Node): string {
  return node.entries[node.entries.length - 1]![0];
}

/** The nodes that replace `node` (none if it became empty; `[node]` if nothing changed). */
async function updateNode(load: LoadNode, node: Node, ops: readonly Op[], lo: number, hi: number): Promise<Node[]> {
  return node.level === 0 ? updateLeaf(node, ops, lo, hi) : updateInternal(load, node, ops, lo, hi);
}

function updateLeaf(node: Node, ops: readonly Op[], lo: number, hi: number): Node[] {
  const entries = node.entries as readonly Entry[];
  const n = entries.length;
  let out: Entry[] = [];
  // The size is kept up to date from the old one; untouched entries are not measured again.
  let total = nodeSize(node);
  let changed = false;
  let i = 0;
  let j = lo;
  while (j < hi) {
    // (Indexed, not destructured: while a page's code is cold, each destructuring makes an iterator.)
    const op = ops[j++]!;
    const key = op[0];
    const value = op[1];
    const at = seek(entries, key, i);
    out = appendRange(out, entries, i, at);
    i = at;
    if (i < n && entries[i]![0] === key) {
      const old = entries[i++]!;
      total -= leafEntrySize(old[0], old[1]);
      changed = true;
    }
    if (value !== DELETED) {
      total += leafEntrySize(key, value);
      // A put's op is a [key, value] pair already, never changed: it serves as the entry.
      out.push(op as Entry);
      changed = true;
    }
  }
  if (!changed) return [node];
  out = appendRange(out, entries, i, n);
  if (out.length === 0) return [];
  return cut(0, out, total);
}

/**
 * The first index from `from` on whose key is >= `key`, galloping: a batch of
 * puts into a full leaf costs a few comparisons per put, not one per entry.
 */
function seek(entries: readonly Entry[], key: string, from: number): number {
  const n = entries.length;
  if (from >= n || compareUTF8(entries[from]![0], key) >= 0) return from;
  let lo = from + 1;
  let step = 1;
  let hi = lo;
  while (hi < n && compareUTF8(entries[hi]![0], key) < 0) {
    lo = hi + 1;
    step *= 2;
    hi = lo + step - 1;
  }
  if (hi > n) hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareUTF8(entries[mid]![0], key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function appendRange(out: Entry[], from: readonly Entry[], start: number, end: number): Entry[] {
  if (start >= end) return out;
  if (out.length === 0) return from.slice(start, end);
  for (let k = start; k < end; k++) out.push(from[k]!);
  return out;
}

async function updateInternal(load: LoadNode, node: Node, ops: readonly Op[], lo: number, hi: number): Promise<Node[]> {
  const entries = node.entries as readonly InternalEntry[];
  const last = entries.length - 1;
  // Which ops go to which child: keys up to its max key; past the last max key, the last child.
  const work: { index: number; lo: number; hi: number }[] = [];
  let j = lo;
  for (let c = 0; c <= last && j < hi; c++) {
    let k = j;
    if (c === last) k = hi;
    else {
      const maxKey = entries[c]![0];
      if (compareUTF8(ops[j]![0], maxKey) > 0) continue;
      while (k < hi && compareUTF8(ops[k]![0], maxKey) <= 0) k++;
    }
    work.push({ index: c, lo: j, hi: k });
    j = k;
  }
  // One child changed (most writes): no closure and no promise per child.
  const replaced =
    work.length === 1
      ? [await updateNode(load, await load(entries[work[0]!.index]![1]), ops, work[0]!.lo, work[0]!.hi)]
      : await Promise.all(work.map(async (w) => updateNode(load, await load(entries[w.index]![1]), ops, w.lo, w.hi)));

  let changed = false;
  let total = nodeSize(node);
  const list: InternalEntry[] = [];
  let copied = 0;
  for (let w = 0; w < work.length; w++) {
    const index = work[w]!.index;
    const nodes = replaced[w]!;
    const old = entries[index]!;
    if (nodes.length === 1 && nodes[0]!.hash !== undefined && nodes[0]!.hash === old[1]) continue;
    changed = true;
    while (copied < index) list.push(entries[copied++]!);
    copied++;
    total -= internalEntrySize(old[0], old[1]);
    for (const n of nodes) {
      const entry: InternalEntry = [lastKey(n), childOf(n)];
      total += internalEntrySize(entry[0], entry[1]);
      list.push(entry);
    }
  }
  if (!changed) return [node];
  while (copied <= last) list.push(entries[copied++]!);
  if (list.length === 0) return [];
  const merged = await mergeSmallChildren(load, node.level - 1, list);
  return cut(node.level, list, merged ? undefined : total);
}

/** Merges every changed child under the minimum size with a neighbour. Edits `list` in place; says whether it did. */
async function mergeSmallChildren(load: LoadNode, childLevel: number, list: InternalEntry[]): Promise<boolean> {
  let merges = false;
  let i = 0;
  while (i < list.length && list.length > 1) {
    const child = list[i]![1];
    if (!(child instanceof MemNode) || child.size >= BTREE_MIN_NODE_BYTES) {
      i++;
      continue;
    }
    merges = true;
    const a = i + 1 < list.length ? i : i - 1;
    const [left, right] = await Promise.all([load(list[a]![1]), load(list[a + 1]![1])]);
    const entries = [...left.entries, ...right.entries];
    // Small grandchildren stranded alone under one of the two now have neighbours to merge with.
    if (childLevel > 0) await mergeSmallChildren(load, childLevel - 1, entries as InternalEntry[]);
    const merged = cut(childLevel, entries);
    list.splice(a, 2, ...merged.map((n) => [lastKey(n), childOf(n)] as const));
    i = merged.length === 1 ? a : a + merged.length;
  }
  return merges;
}

/** Cuts sorted entries into nodes of `level` by size; `total` is their size if known. */
function cut(level: number, entries: readonly NodeEntry[], total?: number): MemNode[] {
  if (total !== undefined && total <= BTREE_MAX_NODE_BYTES) return [new MemNode(level, entries, total)];
  const sizes = new Array<number>(entries.length);
  total = NODE_OVERHEAD_BYTES;
  for (let i = 0; i < entries.length; i++) total += sizes[i] = entrySize(level, entries[i]!);
  const ends = partition(
    sizes,
    total - NODE_OVERHEAD_BYTES,
    BTREE_MIN_NODE_BYTES - NODE_OVERHEAD_BYTES,
    BTREE_MAX_NODE_BYTES - NODE_OVERHEAD_BYTES,
  );
  if (ends.length === 1) return [new MemNode(level, entries, total)];
  const nodes: MemNode[] = [];
  let start = 0;
  for (const end of ends) {
    let size = NODE_OVERHEAD_BYTES;
    for (let i = start; i < end; i++) size += sizes[i]!;
    nodes.push(new MemNode(level, entries.slice(start, end), size));
    start = end;
  }
  return nodes;
}

