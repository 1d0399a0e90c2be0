/**
 * B+tree nodes: how they are stored in chunks and seen in memory.
 *
 * A node chunk's data is `[level, entries]`. Level 0 is a leaf whose entries
 * are `[key, value]`; a higher level is an internal node whose entries are
 * `[maxKey, childHash]`, maxKey being the last key under that child; its refs
 * are the child hashes. The chunk data is used as the decoded node as it is:
 * nothing is copied when a node is read, and scans hand out its entry tuples.
 *
 * During a write, changed nodes are MemNodes whose internal entries point at
 * either a child hash (unchanged subtree) or another MemNode; flush turns
 * them into chunks bottom-up.
 */
import type { ReadonlyJSONValue } from '../../protocol/json';
import { CorruptedStorageError } from '../dag/errors';
import { estimateJSONSize } from '../dag/json-size';
import type { Chunk, ChunkHint, Hash } from '../dag/types';
import type { Entry } from './types';

export type Child = Hash | MemNode;
export type InternalEntry = readonly [maxKey: string, child: Child];
export type NodeEntry = Entry | InternalEntry;

export interface Node {
  readonly level: number;
  /** Leaf: Entry[]; internal: InternalEntry[]. Sorted by key, never mutated. */
  readonly entries: readonly NodeEntry[];
  /** The chunk hash, or undefined for a node not written yet. */
  readonly hash: Hash | undefined;
}

export class MemNode implements Node {
  readonly level: number;
  readonly entries: readonly NodeEntry[];
  readonly size: number;
  get hash(): undefined {
    return undefined;
  }
  constructor(level: number, entries: readonly NodeEntry[], size: number) {
    this.level = level;
    this.entries = entries;
    this.size = size;
  }
}

const NODE_OVERHEAD_BYTES = 16;
const ENTRY_OVERHEAD_BYTES = 4;

export function leafEntrySize(key: string, value: ReadonlyJSONValue): number {
  return key.length + estimateJSONSize(value) + ENTRY_OVERHEAD_BYTES;
}

export function internalEntrySize(maxKey: string, child: Child): number {
  // An unwritten child will get a hash of about the same length as a written one.
  const hashLength = typeof child === 'string' ? child.length : HASH_LENGTH_ESTIMATE;
  return maxKey.length + hashLength + ENTRY_OVERHEAD_BYTES;
}

/** newHashFactory makes 11–17 characters. */
const HASH_LENGTH_ESTIMATE = 18;

export function entrySize(level: number, entry: NodeEntry): number {
  return level === 0 ? leafEntrySize(entry[0], entry[1] as ReadonlyJSONValue) : internalEntrySize(entry[0], entry[1] as Child);
}

/**
 * An empty array of the element kind the arrays of entries have (`[]` has
 * V8's kind for small integers): a new store's empty root is then read by the
 * code a page optimized for the entries of an earlier store's, not thrown
 * back to the interpreter at its first write.
 */
export function emptyEntries<T>(): T[] {
  return [null as T].slice(1);
}

export function emptyLeaf(): MemNode {
  return new MemNode(0, emptyEntries(), NODE_OVERHEAD_BYTES);
}

export function nodeSizeOf(level: number, entries: readonly NodeEntry[], sizes?: readonly number[]): number {
  let size = NODE_OVERHEAD_BYTES;
  if (sizes !== undefined) for (const s of sizes) size += s;
  else for (const e of entries) size += entrySize(level, e);
  return size;
}

interface ChunkNode extends Node {
  readonly hash: Hash;
  /** Estimated bytes, once measured. */
  size: number | undefined;
}

/** The node a chunk holds, kept on the chunk object itself (cheaper than a WeakMap entry per chunk). */
const NODE = Symbol('node');
type NodeChunk = Chunk & { [NODE]?: ChunkNode };

/** The node a chunk holds; checked once per chunk object, then cached. */
export function nodeFromChunk(chunk: Chunk): Node {
  let node = (chunk as NodeChunk)[NODE];
  if (node !== undefined) return node;
  const data = chunk.data;
  if (
    !Array.isArray(data) ||
    data.length !== 2 ||
    typeof data[0] !== 'number' ||
    !Number.isInteger(data[0]) ||
    data[0] < 0 ||
    !Array.isArray(data[1])
  ) {
    throw new CorruptedStorageError(chunk.hash, 'not a B+tree node');
  }
  node = { level: data[0] as number, entries: data[1] as readonly NodeEntry[], hash: chunk.hash, size: undefined };
  (chunk as NodeChunk)[NODE] = node;
  return node;
}

/**
 * The refs of a stored node, from its data: an internal node refers to its
 * children in entry order (the writer stores exactly these), a leaf to
 * nothing. Data that is no node gives none (reading it as a node fails).
 */
export function nodeRefs(data: ReadonlyJSONValue, hash: Hash): readonly Hash[] {
  if (!Array.isArray(data) || data.length !== 2 || typeof data[0] !== 'number' || data[0] === 0 || !Array.isArray(data[1])) return [];
  const entries = data[1] as readonly (readonly [string, unknown])[];
  const refs: Hash[] = new Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const child = entries[i]?.[1];
    if (typeof child !== 'string') throw new CorruptedStorageError(hash, 'an internal node entry must hold a child hash');
    refs[i] = child;
  }
  return refs;
}

/** Read a stored node with its data alone: its refs follow from it. */
export const NODE_HINT: ChunkHint = { refsOf: nodeRefs };

/** Node data to store in a chunk, once every child has a hash. */
export function chunkData(level: number, entries: readonly NodeEntry[]): ReadonlyJSONValue {
  return [level, entries as ReadonlyJSONValue];
}

export function nodeSize(node: Node): number {
  if (node instanceof MemNode) return node.size;
  const stored = node as ChunkNode;
  return (stored.size ??= nodeSizeOf(node.level, node.entries));
}

/** Index of the first entry whose key is >= key (entries.length if none). */
export function lowerBound(entries: readonly NodeEntry[], key: string, compare: (a: string, b: string) => number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(entries[mid]![0], key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Records a node just written as a chunk, so reading it back costs no check or size walk. */
export function rememberWrittenNode(chunk: Chunk, level: number, entries: readonly NodeEntry[], size: number): void {
  (chunk as NodeChunk)[NODE] = { level, entries, hash: chunk.hash, size };
}
