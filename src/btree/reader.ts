/** Reading a B+tree: point lookups, ordered scans, diff. */
import type { ReadonlyJSONValue } from '../../protocol/json';
import type { ChunkHint, DagRead } from '../dag/types';
import { compareUTF8 } from './compare';
import { diffTrees, mergeDiff, type DiffSide } from './diff';
import { lowerBound, NODE_HINT, nodeFromChunk, type Child, type InternalEntry, type Node } from './node';
import { ScanIterator } from './scan-iterator';
import { NOT_AT_HAND, type BTreeReader, type DiffOp, type Entry } from './types';

/** Leaves hold values, not hashes: the dag need not read their refs. */
const LEAF: ChunkHint = { noRefs: true };

/**
 * Leaves loaded ahead of a scan, so a cold scan waits on storage in parallel:
 * a few at first (a short scan reads little more than it needs), twice as
 * many each time the scan reaches one loaded ahead, up to the most.
 */
const READ_AHEAD_FIRST = 2;
const READ_AHEAD_MOST = 32;

interface Frame {
  readonly entries: readonly InternalEntry[];
  index: number;
  readonly level: number;
  ahead: Map<number, Promise<Node>> | undefined;
  /** How many leaves this frame loads ahead now. */
  window?: number;
}

export class BTreeRead implements BTreeReader, DiffSide {
  protected readonly dag: DagRead;
  #root: Child;

  constructor(dag: DagRead, root: Child) {
    this.dag = dag;
    this.#root = root;
  }

  get root(): Child {
    return this.#root;
  }

  protected setRoot(root: Child): void {
    this.#root = root;
  }

  /** `leaf`: the caller knows the child is a leaf (under a level-1 node), which refers to no chunk. */
  async load(child: Child, leaf = false): Promise<Node> {
    return this.loadNow(child) ?? nodeFromChunk(await this.dag.mustGetChunk(child as string, leaf ? LEAF : NODE_HINT));
  }

  /** The node when it is at hand, without waiting (undefined: load it). */
  loadNow(child: Child): Node | undefined {
    if (typeof child !== 'string') return child;
    const chunk = this.dag.peekChunk?.(child);
    return chunk === undefined ? undefined : nodeFromChunk(chunk);
  }

  /** Brings the tree up to date before a read that walks it (the writer applies buffered writes). */
  protected async settle(): Promise<void> {}

  async get(key: string): Promise<ReadonlyJSONValue | undefined> {
    await this.settle();
    return this.getFromTree(key);
  }

  async has(key: string): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  async isEmpty(): Promise<boolean> {
    await this.settle();
    const root = await this.load(this.#root);
    return root.entries.length === 0;
  }

  scan(fromKey?: string): AsyncIterableIterator<Entry> {
    return new ScanIterator(this.leaves(fromKey));
  }

  /**
   * The leaves from `fromKey` on, each with the index of its first entry in
   * range, for callers that iterate entries synchronously (no promise per entry).
   */
  async *leaves(fromKey?: string): AsyncIterableIterator<readonly [entries: readonly Entry[], start: number]> {
    await this.settle();
    const stack: Frame[] = [];
    let node = await this.load(this.#root);
    while (node.level > 0) {
      const entries = node.entries as readonly InternalEntry[];
      const index = fromKey === undefined ? 0 : lowerBound(entries, fromKey, compareUTF8);
      if (index >= entries.length) return;
      const frame: Frame = { entries, index, level: node.level, ahead: undefined };
      stack.push(frame);
      node = await this.#child(frame);
    }
    const first = node.entries as readonly Entry[];
    yield [first, fromKey === undefined ? 0 : lowerBound(first, fromKey, compareUTF8)];
    for (;;) {
      let top = stack[stack.length - 1];
      while (top !== undefined && top.index + 1 >= top.entries.length) {
        stack.pop();
        top = stack[stack.length - 1];
      }
      if (top === undefined) return;
      top.index++;
      node = await this.#child(top);
      while (node.level > 0) {
        const frame: Frame = { entries: node.entries as readonly InternalEntry[], index: 0, level: node.level, ahead: undefined };
        stack.push(frame);
        node = await this.#child(frame);
      }
      yield [node.entries as readonly Entry[], 0];
    }
  }

  /** Loads the frame's current child; under the last internal level, starts loading the next few leaves too. */
  #child(frame: Frame): Promise<Node> {
    const { entries, index } = frame;
    const leaves = frame.level === 1;
    let node = frame.ahead?.get(index);
    if (node !== undefined) {
      frame.ahead!.delete(index);
      frame.window = Math.min(READ_AHEAD_MOST, (frame.window ?? READ_AHEAD_FIRST) * 2);
    } else node = this.load(entries[index]![1], leaves);
    if (leaves) {
      const ahead = (frame.ahead ??= new Map());
      const end = Math.min(entries.length, index + 1 + (frame.window ?? READ_AHEAD_FIRST));
      for (let i = index + 1; i < end; i++) {
        const child = entries[i]![1];
        if (typeof child !== 'string' || ahead.has(i)) continue;
        const loading = this.load(child, true);
        loading.catch(() => {}); // a scan stopped early never awaits it
        ahead.set(i, loading);
      }
    }
    return node;
  }

  async diff(other: BTreeReader): Promise<DiffOp[]> {
    await this.settle();
    if (other instanceof BTreeRead) {
      await other.settle();
      return diffTrees(this, other);
    }
    return mergeDiff([await collect(this)], [await collect(other)]);
  }

  /** The value of `key` in the tree as it stands, when every node on its path is at hand. */
  protected getFromTreeNow(key: string): ReadonlyJSONValue | undefined | typeof NOT_AT_HAND {
    let node = this.loadNow(this.#root);
    while (node !== undefined && node.level > 0) {
      const child = childFor(node, key);
      if (child === undefined) return undefined;
      node = this.loadNow(child);
    }
    return node === undefined ? NOT_AT_HAND : valueIn(node, key);
  }

  protected async getFromTree(key: string): Promise<ReadonlyJSONValue | undefined> {
    let node = this.loadNow(this.#root) ?? (await this.load(this.#root));
    while (node.level > 0) {
      const child = childFor(node, key);
      if (child === undefined) return undefined;
      node = this.loadNow(child) ?? (await this.load(child, node.level === 1));
    }
    return valueIn(node, key);
  }
}

/** The child of an internal node under which `key` would be (undefined: past its last key). */
function childFor(node: Node, key: string): Child | undefined {
  const entries = node.entries as readonly InternalEntry[];
  const i = lowerBound(entries, key, compareUTF8);
  return i === entries.length ? undefined : entries[i]![1];
}

/** The value of `key` in a leaf. */
function valueIn(leaf: Node, key: string): ReadonlyJSONValue | undefined {
  const entries = leaf.entries as readonly Entry[];
  const i = lowerBound(entries, key, compareUTF8);
  return i < entries.length && entries[i]![0] === key ? entries[i]![1] : undefined;
}

async function collect(tree: BTreeReader): Promise<Entry[]> {
  const out: Entry[] = [];
  for await (const e of tree.scan()) out.push(e);
  return out;
}
