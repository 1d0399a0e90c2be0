import type { ReadonlyJSONValue } from '../../protocol/json';
import type { DiffOp } from '../btree/types';
import { decodeIndexKey, encodeIndexPrefix } from './index-key';
import type { StoreLogger } from './logger';
import type { StoreChange } from './subscriptions';
import type { IndexKey } from './transaction-types';

export interface WatchOptions {
  /** Only keys (or, with indexName, secondary keys) with this prefix. @default '' */
  prefix?: string;
  /** Watch an index instead of the primary map; keys are then [secondary, primary]. */
  indexName?: string;
  /** Deliver the current entries as 'add' operations first. @default false */
  initialValuesInFirstDiff?: boolean;
}

export type WatchDiffOp<K> =
  | { readonly op: 'add'; readonly key: K; readonly newValue: ReadonlyJSONValue }
  | { readonly op: 'del'; readonly key: K; readonly oldValue: ReadonlyJSONValue }
  | { readonly op: 'change'; readonly key: K; readonly oldValue: ReadonlyJSONValue; readonly newValue: ReadonlyJSONValue };

export type WatchDiff<K = string | IndexKey> = readonly WatchDiffOp<K>[];

export type WatchNoIndexOptions = WatchOptions & { indexName?: undefined };
export type WatchIndexOptions = WatchOptions & { indexName: string };
export type WatchCallback<K = string | IndexKey> = (diff: WatchDiff<K>) => void;

interface Watcher {
  readonly callback: WatchCallback;
  readonly indexName: string | undefined;
  /** Prefix in the watched map's key space. */
  readonly mapPrefix: string;
}

/** Watchers get the diff of every commit, filtered to their prefix; never an empty one. */
export class Watchers {
  private readonly watchers = new Set<Watcher>();

  constructor(private readonly logger: StoreLogger) {}

  add(callback: WatchCallback, options: WatchOptions): { remove: () => void; filter: (diff: readonly DiffOp[]) => void } {
    const w: Watcher = {
      callback,
      indexName: options.indexName,
      mapPrefix: options.indexName === undefined ? (options.prefix ?? '') : encodeIndexPrefix(options.prefix ?? ''),
    };
    this.watchers.add(w);
    return { remove: () => this.watchers.delete(w), filter: (diff) => this.deliver(w, diff) };
  }

  get size(): number {
    return this.watchers.size;
  }

  notify(change: StoreChange): void {
    // (forEach: no iterator per commit while code is cold.)
    this.watchers.forEach((w) => this.deliver(w, w.indexName === undefined ? change.diff : change.indexDiff(w.indexName)));
  }

  private deliver(w: Watcher, diff: readonly DiffOp[]): void {
    const out: WatchDiffOp<string | IndexKey>[] = [];
    for (const d of diff) {
      if (!d.key.startsWith(w.mapPrefix)) continue;
      out.push(w.indexName === undefined ? d : { ...d, key: decodeIndexKey(d.key) });
    }
    if (out.length === 0) return;
    try {
      w.callback(out);
    } catch (e) {
      this.logger.error('Watch callback threw', e);
    }
  }
}
