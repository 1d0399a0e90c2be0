/**
 * The persistent B+tree over the dag. Contract between btree/ (implements it)
 * and db/ (uses it). Keys compare in UTF-8 byte order.
 */
import type { ReadonlyJSONValue } from '../../protocol/json';
import type { Hash } from '../dag/types';

export type Entry = readonly [key: string, value: ReadonlyJSONValue];

export type DiffOp =
  | { readonly op: 'add'; readonly key: string; readonly newValue: ReadonlyJSONValue }
  | { readonly op: 'del'; readonly key: string; readonly oldValue: ReadonlyJSONValue }
  | { readonly op: 'change'; readonly key: string; readonly oldValue: ReadonlyJSONValue; readonly newValue: ReadonlyJSONValue };

export interface BTreeReader {
  get(key: string): Promise<ReadonlyJSONValue | undefined>;
  has(key: string): Promise<boolean>;
  isEmpty(): Promise<boolean>;
  /** Entries in key order from `fromKey` (inclusive), or from the start. */
  scan(fromKey?: string): AsyncIterableIterator<Entry>;
  /** Changes that turn `this` into `other`, in key order. */
  diff(other: BTreeReader): Promise<DiffOp[]>;
}

/** What getNow answers when the value cannot be told without waiting (a node to load, a batch being applied). */
export const NOT_AT_HAND: unique symbol = Symbol();

export interface BTreeWriter extends BTreeReader {
  /**
   * The value of `key` when it can be told without waiting (buffered, or in
   * nodes at hand), else NOT_AT_HAND (ask get). Spares a write transaction a
   * promise per put on the common path.
   */
  getNow(key: string): ReadonlyJSONValue | undefined | typeof NOT_AT_HAND;
  /** put, at once: buffered, the tree is changed at the next walk or flush. */
  putNow(key: string, value: ReadonlyJSONValue): void;
  put(key: string, value: ReadonlyJSONValue): Promise<void>;
  del(key: string): Promise<boolean>;
  clear(): Promise<void>;
  /** Writes the changed nodes as chunks and returns the new root hash (at once when it can). */
  flush(): Hash | Promise<Hash>;
}
