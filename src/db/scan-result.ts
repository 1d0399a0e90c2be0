import type { ReadonlyJSONValue } from '../../protocol/json';
import { compareUTF8 } from '../btree/compare';
import { lowerBound, type Child, type InternalEntry } from '../btree/node';
import { BTreeRead } from '../btree/reader';
import type { BTreeReader, Entry } from '../btree/types';
import type { ScanRecord } from './read-record';
import type { NormalizedScan } from './scan-options';
import type { ScanResult } from './transaction-types';
import { deepFreezeJSON } from './json-value';

/** The transaction a scan reads in: checked before every step. */
export interface ScanOwner {
  checkOpen(): void;
}

/**
 * Starts one run of a scan (recording it, when reads are recorded). With
 * `atOnce`, may instead return all its entries, read at once.
 */
export type OpenScan = (atOnce: boolean) => AsyncIterator<Entry> | readonly Entry[];

/**
 * Iterates the entries of one normalized scan: applies prefix, exclusive start
 * and limit, checks the transaction is still open before every step, and
 * updates the scan's read record as it goes.
 */
export class ScanIterator implements AsyncIterator<Entry> {
  private inner: AsyncIterator<Entry> | undefined;
  private count = 0;
  /** The leading key(s) still to skip (exclusive start). */
  private skip: string | undefined;
  private finished = false;

  constructor(
    private readonly scan: NormalizedScan,
    private readonly tree: BTreeReader,
    private readonly owner: ScanOwner,
    private readonly record: ScanRecord | undefined,
  ) {
    this.skip = scan.skip;
  }

  async next(): Promise<IteratorResult<Entry>> {
    this.owner.checkOpen();
    if (this.finished) return { done: true, value: undefined };
    if (this.count >= this.scan.limit) return this.finish(false);
    const inner = (this.inner ??= this.tree.scan(this.scan.fromKey));
    for (;;) {
      const r = await inner.next();
      this.owner.checkOpen();
      if (r.done) return this.finish(true);
      const key = r.value[0];
      if (!key.startsWith(this.scan.prefix)) return this.finish(true);
      const skip = this.skip;
      if (skip !== undefined) {
        if (this.scan.skipPrefix ? key.startsWith(skip) : key === skip) continue;
        this.skip = undefined;
      }
      this.count++;
      if (this.record) this.record.lastKey = key;
      // Values read back from storage are not frozen yet; freezing is a no-op check otherwise.
      deepFreezeJSON(r.value[1]);
      return r;
    }
  }

  async return(): Promise<IteratorResult<Entry>> {
    return this.finish(false);
  }

  private async finish(exhausted: boolean): Promise<IteratorResult<Entry>> {
    if (!this.finished) {
      this.finished = true;
      if (exhausted && this.record) this.record.exhausted = true;
      if (!exhausted) await this.inner?.return?.();
    }
    return { done: true, value: undefined };
  }
}

/**
 * The entries of a whole scan, walked at once, when every node it needs is
 * at hand (a read-only tree, warm): no promise per entry or per level, and
 * the same entries and read record as ScanIterator. Undefined when a node is
 * not at hand (nothing recorded yet): then the scan iterates.
 */
export function entriesAtHand(tree: BTreeReader, scan: NormalizedScan, record: ScanRecord | undefined, owner: ScanOwner): Entry[] | undefined {
  owner.checkOpen();
  if (!(tree instanceof BTreeRead)) return undefined;
  const { fromKey, prefix, limit } = scan;
  let skip = scan.skip;
  // Whether the limit still lets entries in; true at the end: every matching key was seen.
  let underLimit = limit > 0;
  const out: Entry[] = [];
  // The internal nodes above the current leaf, with the index of the child taken in each.
  const path: [readonly InternalEntry[], number][] = [];
  let child: Child = tree.root;
  // (Below the first path every key is past fromKey: lowerBound finds 0 there.)
  walk: while (underLimit) {
    const node = tree.loadNow(child);
    if (node === undefined) return undefined;
    const entries = node.entries;
    let i = lowerBound(entries, fromKey, compareUTF8);
    if (node.level > 0) {
      if (i >= entries.length) break;
      path.push([entries as readonly InternalEntry[], i]);
      child = (entries[i] as InternalEntry)[1];
      continue;
    }
    for (; i < entries.length; i++) {
      const e = entries[i] as Entry;
      if (!e[0].startsWith(prefix)) break walk;
      if (skip !== undefined) {
        if (scan.skipPrefix ? e[0].startsWith(skip) : e[0] === skip) continue;
        skip = undefined;
      }
      deepFreezeJSON(e[1]);
      underLimit = out.push(e) < limit;
      if (!underLimit) break walk;
    }
    let top;
    while ((top = path[path.length - 1]) !== undefined && ++top[1] >= top[0].length) path.pop();
    if (top === undefined) break;
    child = top[0][top[1]]![1];
  }
  if (record !== undefined) {
    record.lastKey = out[out.length - 1]?.[0];
    record.exhausted = underLimit;
  }
  return out;
}

/** One view of a scan (values, keys or entries): a class, so that making one makes no closures. */
class View<T> implements AsyncIterable<T> {
  constructor(
    private readonly open: OpenScan,
    private readonly map: (e: Entry) => T,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<T> {
    const it = this.open(false) as AsyncIterator<Entry>;
    const map = this.map;
    return {
      async next() {
        const r = await it.next();
        return r.done ? r : { done: false, value: map(r.value) };
      },
      async return() {
        await it.return?.();
        return { done: true, value: undefined };
      },
    };
  }

  async toArray(): Promise<T[]> {
    const it = this.open(true);
    if (Array.isArray(it)) return it.map(this.map);
    const out: T[] = [];
    for (;;) {
      const r = await (it as AsyncIterator<Entry>).next();
      if (r.done) return out;
      out.push(this.map(r.value));
    }
  }
}

const valueOf = (e: Entry) => e[1];

export class ScanResultImpl<K> implements ScanResult<K> {
  constructor(
    private readonly open: OpenScan,
    private readonly toKey: (mapKey: string) => K,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<ReadonlyJSONValue> {
    return this.values()[Symbol.asyncIterator]();
  }

  values(): View<ReadonlyJSONValue> {
    return new View(this.open, valueOf);
  }

  keys(): View<K> {
    const toKey = this.toKey;
    return new View(this.open, (e) => toKey(e[0]));
  }

  entries(): View<readonly [K, ReadonlyJSONValue]> {
    const toKey = this.toKey;
    return new View(this.open, (e) => [toKey(e[0]), e[1]] as const);
  }

  toArray(): Promise<ReadonlyJSONValue[]> {
    return this.values().toArray();
  }
}
