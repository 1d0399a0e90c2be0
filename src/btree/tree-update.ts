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
  lowerBound,
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
  const nodes = await updateNode(load, rootNode, ops, 0, ops.length);
  if (nodes.length === 0) return emptyLeaf();
  let top = oneTop(nodes, rootNode.level);
  while (top.level > 0 && top.entries.length === 1) top = await load(top.entries[0]![1] as Child);
  return childOf(top);
}

/** The one node above `nodes` (of level `level`): levels are added over them until one holds them all. */
function oneTop(nodes: Node[], level: number): Node {
  while (nodes.length > 1) {
    level++;
    nodes = cut(
      level,
      nodes.map((n) => [lastKey(n), childOf(n)] as const),
    );
  }
  return nodes[0]!;
}

/** A node when it is at hand, without waiting; undefined when it must be loaded. */
export type LoadNodeNow = (child: Child) => Node | undefined;

/**
 * updateTree without waiting, when every node the batch reaches is at hand
 * (a write to recently written or cached paths: most writes). Undefined when
 * one is not: nothing was changed (the nodes made so far are dropped), and
 * updateTree does the work.
 */
export function updateTreeNow(loadNow: LoadNodeNow, root: Child, ops: readonly Op[]): Child | undefined {
  const rootNode = loadNow(root);
  if (rootNode === undefined) return undefined;
  const nodes = updateNodeNow(loadNow, rootNode, ops, 0, ops.length);
  if (nodes === undefined) return undefined;
  if (nodes.length === 0) return emptyLeaf();
  let top: Node | undefined = oneTop(nodes, rootNode.level);
  while (top.level > 0 && top.entries.length === 1) {
    top = loadNow(top.entries[0]![1] as Child);
    if (top === undefined) return undefined;
  }
  return childOf(top);
}

function updateNodeNow(loadNow: LoadNodeNow, node: Node, ops: readonly Op[], lo: number, hi: number): Node[] | undefined {
  return node.level === 0 ? updateLeaf(node, ops, lo, hi) : updateInternalNow(loadNow, node, ops, lo, hi);
}

function updateInternalNow(loadNow: LoadNodeNow, node: Node, ops: readonly Op[], lo: number, hi: number): Node[] | undefined {
  const entries = node.entries as readonly InternalEntry[];
  const work = routeOps(entries, ops, lo, hi);
  const replaced: Node[][] = [];
  for (let w = 0; w < work.length; w++) {
    const child = loadNow(entries[work[w]!.index]![1]);
    if (child === undefined) return undefined;
    const nodes = updateNodeNow(loadNow, child, ops, work[w]!.lo, work[w]!.hi);
    if (nodes === undefined) return undefined;
    replaced.push(nodes);
  }
  const rebuilt = replaceChildren(node, work, replaced);
  if (rebuilt === undefined) return [node];
  if (rebuilt.list.length === 0) return [];
  const merged = mergeSmallChildrenNow(loadNow, node.level - 1, rebuilt.list);
  if (merged === undefined) return undefined;
  return cut(node.level, rebuilt.list, merged ? undefined : rebuilt.total);
}

/** mergeSmallChildren without waiting; undefined when a neighbour is not at hand (`list` is then to be dropped). */
function mergeSmallChildrenNow(loadNow: LoadNodeNow, childLevel: number, list: InternalEntry[]): boolean | undefined {
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
    const left = loadNow(list[a]![1]);
    const right = loadNow(list[a + 1]![1]);
    if (left === undefined || right === undefined) return undefined;
    const entries = [...left.entries, ...right.entries];
    if (childLevel > 0 && mergeSmallChildrenNow(loadNow, childLevel - 1, entries as InternalEntry[]) === undefined) return undefined;
    const merged = cut(childLevel, entries);
    list.splice(a, 2, ...merged.map((n) => [lastKey(n), childOf(n)] as const));
    i = merged.length === 1 ? a : a + merged.length;
  }
  return merges;
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
  if (hi - lo === 1) {
    const op = ops[lo]!;
    const key = op[0];
    const at = lowerBound(entries, key, compareUTF8);
    // One put that replaces an entry or comes after the last (a mutation's put, mostly): the entries in one
    // copy (a copy and a push that grew it again was most of what a put allocated). The op serves as the entry.
    if (op[1] !== DELETED && (at === entries.length || entries[at]![0] === key)) {
      const old = entries[at];
      const out = old ? entries.slice() : entries.concat([op as Entry]);
      out[at] = op as Entry;
      return cut(0, out, nodeSize(node) + leafEntrySize(key, op[1]) - (old ? leafEntrySize(key, old[1]) : 0));
    }
  }
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
  // The rest in one copy (a put into a full leaf: no push per entry after it).
  if (i < n) out = out.concat(entries.slice(i));
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

/** Which ops go to which child: keys up to its max key; past the last max key, the last child. */
interface Work {
  readonly index: number;
  readonly lo: number;
  readonly hi: number;
}

function routeOps(entries: readonly InternalEntry[], ops: readonly Op[], lo: number, hi: number): Work[] {
  const last = entries.length - 1;
  const work: Work[] = [];
  let j = lo;
  // The first child that takes an op, by binary search: a put past a wide node's last keys compares with a few keys, not all.
  const first = lo < hi ? Math.min(last, lowerBound(entries, ops[lo]![0], compareUTF8)) : 0;
  for (let c = first; c <= last && j < hi; c++) {
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
  return work;
}

/** The node's entries with the routed children replaced by the nodes that replace them, and their size; undefined when none changed. */
function replaceChildren(node: Node, work: readonly Work[], replaced: readonly (readonly Node[])[]): { list: InternalEntry[]; total: number } | undefined {
  const entries = node.entries as readonly InternalEntry[];
  const last = entries.length - 1;
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
  if (!changed) return undefined;
  while (copied <= last) list.push(entries[copied++]!);
  return { list, total };
}

async function updateInternal(load: LoadNode, node: Node, ops: readonly Op[], lo: number, hi: number): Promise<Node[]> {
  const entries = node.entries as readonly InternalEntry[];
  const work = routeOps(entries, ops, lo, hi);
  // One child changed (most writes): no closure and no promise per child.
  const replaced =
    work.length === 1
      ? [await updateNode(load, await load(entries[work[0]!.index]![1]), ops, work[0]!.lo, work[0]!.hi)]
      : await Promise.all(work.map(async (w) => updateNode(load, await load(entries[w.index]![1]), ops, w.lo, w.hi)));
  const rebuilt = replaceChildren(node, work, replaced);
  if (rebuilt === undefined) return [node];
  if (rebuilt.list.length === 0) return [];
  const merged = await mergeSmallChildren(load, node.level - 1, rebuilt.list);
  return cut(node.level, rebuilt.list, merged ? undefined : rebuilt.total);
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

