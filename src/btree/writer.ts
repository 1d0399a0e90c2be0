/**
 * Writing a B+tree. put/del are buffered; the buffer is applied to the tree
 * as one sorted batch (tree-update.ts) before anything walks the tree (scan,
 * isEmpty, diff) and at flush, so many writes in one transaction cost one
 * rebuild of the touched paths. get/has look in the buffer first.
 * flush() writes the changed nodes as chunks, children first.
 */
import type { ReadonlyJSONValue } from '../../protocol/json';
import type { DagWrite, Hash } from '../dag/types';
import { compareUTF8 } from './compare';
import { MemNode, chunkData, emptyLeaf, rememberWrittenNode, type InternalEntry } from './node';
import { BTreeRead } from './reader';
import { DELETED, updateTree, updateTreeNow, type Op } from './tree-update';
import { NOT_AT_HAND, type BTreeWriter } from './types';

type Pending = Map<string, ReadonlyJSONValue | typeof DELETED>;

const byKey = (a: Op, b: Op): number => compareUTF8(a[0], b[0]);

/** A batch as ops in key order (gathered through forEach: no iterator step per key while code is cold). */
function sortedOps(batch: Pending): Op[] {
  const ops: Op[] = [];
  batch.forEach((value, key) => ops.push([key, value]));
  if (ops.length > 1) ops.sort(byKey);
  return ops;
}

export class BTreeWrite extends BTreeRead implements BTreeWriter {
  readonly #dag: DagWrite;
  #pending: Pending = new Map();
  /** A batch being applied: still visible to get/has until the new root is in place. */
  #applying: Pending | undefined;
  #settling: Promise<void> | undefined;
  #flushing: Promise<Hash> | undefined;

  constructor(dag: DagWrite, root: Hash | undefined) {
    super(dag, root ?? emptyLeaf());
    this.#dag = dag;
  }

  override async get(key: string): Promise<ReadonlyJSONValue | undefined> {
    const v = this.getNow(key);
    if (v !== NOT_AT_HAND) return v;
    if (this.#settling !== undefined) await this.#settling;
    return this.getFromTree(key);
  }

  getNow(key: string): ReadonlyJSONValue | undefined | typeof NOT_AT_HAND {
    let v = this.#pending.get(key);
    if (v === undefined && this.#applying !== undefined) v = this.#applying.get(key);
    if (v !== undefined) return v === DELETED ? undefined : v;
    return this.#settling === undefined ? this.getFromTreeNow(key) : NOT_AT_HAND;
  }

  putNow(key: string, value: ReadonlyJSONValue): void {
    this.#pending.set(key, value);
  }

  async put(key: string, value: ReadonlyJSONValue): Promise<void> {
    this.#pending.set(key, value);
  }

  async del(key: string): Promise<boolean> {
    const existed = await this.has(key);
    if (existed) this.#pending.set(key, DELETED);
    return existed;
  }

  async clear(): Promise<void> {
    if (this.#settling !== undefined) await this.#settling;
    this.#pending = new Map();
    this.setRoot(emptyLeaf());
  }

  /**
   * At once (the hash, no promise) when nothing is flushing or settling, every
   * node the writes reach is at hand and the dag stores chunks at once (a
   * mutation's commit, most of the time).
   */
  flush(): Hash | Promise<Hash> {
    if (this.#flushing || !this.#dag.putChunkNow || !this.#settleNow()) return this.#flushLater();
    return this.#writeRoot();
  }

  async #flushLater(): Promise<Hash> {
    // One flush at a time, so no node is written twice.
    while (this.#flushing !== undefined) await this.#flushing.catch(() => {});
    const flushing = (async () => {
      await this.settle();
      const puts: Promise<void>[] = [];
      const hash = this.#writeRoot(puts);
      await Promise.all(puts);
      return hash;
    })();
    this.#flushing = flushing;
    try {
      return await flushing;
    } finally {
      this.#flushing = undefined;
    }
  }

  /** Writes the settled tree's unwritten nodes (see #write) and takes the root's hash as the root. */
  #writeRoot(puts?: Promise<void>[]): Hash {
    const root = this.root;
    if (typeof root === 'string') return root;
    const hash = this.#write(root, puts);
    this.setRoot(hash);
    return hash;
  }

  /** Applies the buffered writes at once when nothing is settling and every node they reach is at hand; says whether the tree is settled. */
  #settleNow(): boolean {
    if (this.#settling !== undefined) return false;
    if (this.#pending.size === 0) return true;
    const root = updateTreeNow((c) => this.loadNow(c), this.root, sortedOps(this.#pending));
    if (root === undefined) return false;
    this.#pending = new Map();
    this.setRoot(root);
    return true;
  }

  protected override async settle(): Promise<void> {
    while (this.#settling !== undefined) await this.#settling;
    // Every node the batch reaches at hand (most writes): applied at once, nothing to wait for.
    if (this.#settleNow()) return;
    const batch = this.#pending;
    this.#pending = new Map();
    this.#applying = batch;
    this.#settling = (async () => {
      try {
        this.setRoot(await updateTree((c) => this.load(c), this.root, sortedOps(batch)));
      } finally {
        this.#applying = undefined;
        this.#settling = undefined;
      }
    })();
    await this.#settling;
  }

  /**
   * Writes `node` and its unwritten descendants as chunks, children first,
   * in one synchronous walk: the puts are only awaited together (`puts`), so
   * a path of a few nodes costs no promise per node; without `puts`, stored
   * at once (putChunkNow).
   */
  #write(node: MemNode, puts?: Promise<void>[]): Hash {
    const entries = node.entries;
    const refs: Hash[] = [];
    if (node.level > 0) {
      // A MemNode owns its entries array (tree-update never shares one), so
      // written children are swapped for their hashes in place: the array
      // becomes the chunk data without another copy of a wide node.
      const internal = entries as InternalEntry[];
      for (let i = 0; i < internal.length; i++) {
        const entry = internal[i]!;
        const c = entry[1];
        if (typeof c === 'string') {
          refs.push(c);
          continue;
        }
        const hash = this.#write(c, puts);
        refs.push(hash);
        internal[i] = [entry[0], hash];
      }
    }
    const chunk = this.#dag.createChunk(chunkData(node.level, entries), refs);
    if (!puts) this.#dag.putChunkNow!(chunk);
    else puts.push(this.#dag.putChunk(chunk));
    rememberWrittenNode(chunk, node.level, entries, node.size);
    return chunk.hash;
  }
}

