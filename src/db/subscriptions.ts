import type { DiffOp } from '../btree/types';
import { deepEqualJSON } from './json-value';
import type { StoreLogger } from './logger';
import { RangeIndex, type KeyRange } from './range-index';
import { ReadRecord, scanUpperKey } from './read-record';
import type { KeyCompare } from './scan-options';
import type { ReadTransaction } from './transaction-types';
import type { ReadonlyJSONValue } from '../../protocol/json';

export interface SubscribeOptions<R> {
  onData: (result: R) => void;
  onError?: (error: unknown) => void;
  onDone?: () => void;
  /** @default deep equality of JSON-like values */
  isEqual?: (a: R, b: R) => boolean;
}

/** What one commit changed, as the subscriptions need it. */
export interface StoreChange {
  /** Changes of the primary map, in key order. */
  readonly diff: readonly DiffOp[];
  /** Changes of an index map (encoded keys), in key order. */
  indexDiff(name: string): readonly DiffOp[];
}

/** Runs a body in a read transaction on the current head, recording what it reads. */
export type QueryRunner = <R>(body: (tx: ReadTransaction) => Promise<R> | R, record: ReadRecord) => Promise<R>;

/** Opens one read of the current head for several bodies: `fn` gets their runner. */
export type SharedReader = (fn: (run: QueryRunner) => Promise<unknown>) => Promise<unknown>;

interface Subscription {
  readonly body: (tx: ReadTransaction) => Promise<unknown> | unknown;
  readonly options: SubscribeOptions<unknown>;
  active: boolean;
  runs: number;
  /** Runs started and not finished; a change during one makes it stale. */
  running: number;
  hasResult: boolean;
  last: unknown;
  /** Keys read with get/has. */
  keys: ReadonlySet<string>;
  /** Scanned ranges, in the order scanned; undefined before the first run ends. */
  ranges: readonly ScanRange[] | undefined;
}

/** A range a subscription scanned, in the map it scanned (undefined: the primary map). */
interface ScanRange extends KeyRange<Subscription> {
  readonly map: string | undefined;
}

function defaultIsEqual(a: unknown, b: unknown): boolean {
  return deepEqualJSON(a as ReadonlyJSONValue, b as ReadonlyJSONValue);
}

/**
 * Keeps the subscriptions, what each one read last time, and re-runs only
 * those whose reads a change can reach.
 */
export class Subscriptions {
  private readonly subs = new Set<Subscription>();
  /** Primary key -> subscriptions that read it with get/has. */
  private readonly byKey = new Map<string, Set<Subscription>>();
  /** Map name ('' + index name, or undefined) -> ranges, rebuilt lazily. */
  private rangeIndexes: Map<string | undefined, RangeIndex<Subscription>> | undefined;
  /** Subscriptions with a run in flight: a change during it may have come too late for it. */
  private readonly running = new Set<Subscription>();

  constructor(
    private readonly runQuery: QueryRunner,
    private readonly compare: KeyCompare,
    private readonly logger: StoreLogger,
    /** Re-runs after a change share one read. @default each opens its own */
    private readonly sharedRead: SharedReader = (fn) => fn(runQuery),
  ) {}

  subscribe<R>(body: (tx: ReadTransaction) => Promise<R> | R, options: SubscribeOptions<R>): () => void {
    const sub: Subscription = {
      body,
      options: options as SubscribeOptions<unknown>,
      active: true,
      runs: 0,
      running: 0,
      hasResult: false,
      last: undefined,
      keys: new Set(),
      ranges: undefined,
    };
    this.subs.add(sub);
    void this.run(sub);
    return () => this.remove(sub, true);
  }

  /** Marks and re-runs the subscriptions the change can reach; resolves when they are done. */
  fire(change: StoreChange): Promise<unknown> {
    const hit = this.subs.size === 0 ? undefined : this.affected(change);
    if (!hit?.size) return Promise.resolve();
    // (Not an async arrow: the read waits on the runs' own promise, or the one run's.)
    return this.sharedRead((run) => (hit.size === 1 ? this.run(hit.values().next().value!, run) : Promise.all([...hit].map((s) => this.run(s, run)))));
  }

  /** Ends every subscription (calls onDone). */
  close(): void {
    for (const s of [...this.subs]) this.remove(s, true);
  }

  private affected(change: StoreChange): Set<Subscription> {
    // (forEach and indexed loops, no for-of: while a page's code is cold, each iterator step and
    // destructured pair is an object, and this runs at every commit.)
    const hit = new Set<Subscription>();
    this.running.forEach((s) => void hit.add(s));
    const indexes = this.getRangeIndexes();
    const primary = indexes.get(undefined);
    const add = (s: Subscription): void => void hit.add(s);
    const diff = change.diff;
    for (let i = 0; i < diff.length; i++) {
      const key = diff[i]!.key;
      const subs = this.byKey.get(key);
      if (subs !== undefined) subs.forEach(add);
      primary?.forEachContaining(key, add);
    }
    // Index ranges: only when a subscription scanned an index.
    if (indexes.size > (primary === undefined ? 0 : 1)) {
      indexes.forEach((index, name) => {
        if (name === undefined) return;
        const indexDiff = change.indexDiff(name);
        for (let i = 0; i < indexDiff.length; i++) index.forEachContaining(indexDiff[i]!.key, add);
      });
    }
    return hit;
  }

  private getRangeIndexes(): Map<string | undefined, RangeIndex<Subscription>> {
    if (this.rangeIndexes) return this.rangeIndexes;
    const byMap = new Map<string | undefined, KeyRange<Subscription>[]>();
    for (const s of this.subs) {
      for (const r of s.ranges ?? []) {
        let list = byMap.get(r.map);
        if (!list) byMap.set(r.map, (list = []));
        list.push(r);
      }
    }
    const out = new Map<string | undefined, RangeIndex<Subscription>>();
    for (const [name, list] of byMap) out.set(name, new RangeIndex(list, this.compare));
    return (this.rangeIndexes = out);
  }

  private async run(sub: Subscription, runQuery: QueryRunner = this.runQuery): Promise<void> {
    const runNo = ++sub.runs;
    const record = new ReadRecord();
    let result: unknown;
    let error: unknown;
    let failed = false;
    sub.running++;
    this.running.add(sub);
    try {
      result = await runQuery(sub.body, record);
    } catch (e) {
      failed = true;
      error = e;
    } finally {
      if (--sub.running === 0) this.running.delete(sub);
    }
    if (!sub.active || runNo !== sub.runs) return;
    this.setReads(sub, record);
    if (failed) {
      if (sub.options.onError) this.call(() => sub.options.onError!(error));
      else this.logger.error('Subscription body failed', error);
      return;
    }
    const isEqual = sub.options.isEqual ?? defaultIsEqual;
    if (sub.hasResult && isEqual(sub.last, result)) return;
    sub.hasResult = true;
    sub.last = result;
    this.call(() => sub.options.onData(result));
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.logger.error('Subscription callback threw', e);
    }
  }

  private setReads(sub: Subscription, record: ReadRecord): void {
    for (const k of sub.keys) if (!record.keys.has(k)) this.byKey.get(k)?.delete(sub);
    for (const k of record.keys) {
      let set = this.byKey.get(k);
      if (!set) this.byKey.set(k, (set = new Set()));
      set.add(sub);
    }
    sub.keys = record.keys;

    // Most runs scan what the last one did: compared first, the ranges are only made anew when they changed.
    if (sameRanges(sub.ranges, record.scans)) return;
    const ranges: ScanRange[] = [];
    for (const scan of record.scans) {
      const upper = scanUpperKey(scan);
      if (upper !== null) ranges.push({ map: scan.indexName, lo: scan.fromKey, prefix: scan.prefix, upper, item: sub });
    }
    sub.ranges = ranges;
    this.rangeIndexes = undefined;
  }

  private remove(sub: Subscription, done: boolean): void {
    if (!sub.active) return;
    sub.active = false;
    this.subs.delete(sub);
    for (const k of sub.keys) {
      const set = this.byKey.get(k);
      set?.delete(sub);
      if (set?.size === 0) this.byKey.delete(k);
    }
    if (sub.ranges !== undefined && sub.ranges.length > 0) this.rangeIndexes = undefined;
    if (done && sub.options.onDone) this.call(() => sub.options.onDone!());
  }
}

/** Whether `ranges` are the ranges of `scans` (those with an upper bound), in the same order. */
function sameRanges(ranges: readonly ScanRange[] | undefined, scans: ReadRecord['scans']): boolean {
  if (ranges === undefined) return false;
  let n = 0;
  for (const scan of scans) {
    const upper = scanUpperKey(scan);
    if (upper === null) continue;
    const r = ranges[n++];
    if (r === undefined || r.map !== scan.indexName || r.lo !== scan.fromKey || r.prefix !== scan.prefix || r.upper !== upper) return false;
  }
  return n === ranges.length;
}
