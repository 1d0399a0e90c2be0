import type { ReadonlyJSONValue } from '../../protocol/json';
import type { Entry } from '../btree/types';
import type { ScanRecord } from './read-record';
import type { NormalizedScan } from './scan-options';
import type { ScanResult } from './transaction-types';
import { deepFreezeJSON } from './json-value';

/** Where a scan reads from: entries in key order from a key (inclusive). */
export type EntrySource = (fromKey: string) => AsyncIterator<Entry>;

/**
 * Iterates the entries of one normalized scan: applies prefix, exclusive start
 * and limit, checks the transaction is still open before every step, and
 * updates the scan's read record as it goes.
 */
export class ScanIterator implements AsyncIterableIterator<Entry> {
  private inner: AsyncIterator<Entry> | undefined;
  private count = 0;
  private skipping: boolean;
  private finished = false;

  constructor(
    private readonly scan: NormalizedScan,
    private readonly source: EntrySource,
    private readonly checkOpen: () => void,
    private readonly record: ScanRecord | undefined,
  ) {
    this.skipping = scan.skip !== undefined;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Entry> {
    return this;
  }

  async next(): Promise<IteratorResult<Entry>> {
    this.checkOpen();
    if (this.finished) return { done: true, value: undefined };
    if (this.count >= this.scan.limit) return this.finish(false);
    const inner = (this.inner ??= this.source(this.scan.fromKey));
    for (;;) {
      const r = await inner.next();
      this.checkOpen();
      if (r.done) return this.finish(true);
      const key = r.value[0];
      if (!key.startsWith(this.scan.prefix)) return this.finish(true);
      if (this.skipping) {
        const skip = this.scan.skip!;
        if (this.scan.skipPrefix ? key.startsWith(skip) : key === skip) continue;
        this.skipping = false;
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

type Iter<T> = AsyncIterable<T> & { toArray(): Promise<T[]> };

function view<T>(open: () => AsyncIterator<Entry>, map: (e: Entry) => T): Iter<T> {
  return {
    [Symbol.asyncIterator]() {
      const it = open();
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
    },
    async toArray() {
      const it = open();
      const out: T[] = [];
      for (;;) {
        const r = await it.next();
        if (r.done) return out;
        out.push(map(r.value));
      }
    },
  };
}

export class ScanResultImpl<K> implements ScanResult<K> {
  constructor(
    private readonly open: () => AsyncIterator<Entry>,
    private readonly toKey: (mapKey: string) => K,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<ReadonlyJSONValue> {
    return this.values()[Symbol.asyncIterator]();
  }

  values(): Iter<ReadonlyJSONValue> {
    return view(this.open, (e) => e[1]);
  }

  keys(): Iter<K> {
    const toKey = this.toKey;
    return view(this.open, (e) => toKey(e[0]));
  }

  entries(): Iter<readonly [K, ReadonlyJSONValue]> {
    const toKey = this.toKey;
    return view(this.open, (e) => [toKey(e[0]), e[1]] as const);
  }

  toArray(): Promise<ReadonlyJSONValue[]> {
    return this.values().toArray();
  }
}
