/**
 * The transaction and mutator interface shared by the client store and the
 * reference server: the server runs the very same mutator functions.
 */
import type { JSONValue, ReadonlyJSONValue } from '../../protocol/json';

export type { JSONValue, ReadonlyJSONValue };

/** Why a transaction runs: first local run, replay on top of server state, or on the server. */
export type TransactionReason = 'initial' | 'rebase' | 'authoritative';

export interface ScanStartKey {
  key: string;
  /** Start after `key` instead of at it. @default false */
  exclusive?: boolean;
}

export interface ScanIndexStartKey {
  /** [secondaryKey, primaryKey?] */
  key: readonly [string, string?] | string;
  exclusive?: boolean;
}

export interface ScanNoIndexOptions {
  prefix?: string;
  start?: ScanStartKey;
  limit?: number;
  indexName?: undefined;
}

export interface ScanIndexOptions {
  prefix?: string;
  start?: ScanIndexStartKey;
  limit?: number;
  indexName: string;
}

export type ScanOptions = ScanNoIndexOptions | ScanIndexOptions;

/** Key of an index entry: [secondaryKey, primaryKey]. */
export type IndexKey = readonly [secondary: string, primary: string];

/** The result of a scan: async-iterable over values, with typed views. */
export interface ScanResult<K, V = ReadonlyJSONValue> extends AsyncIterable<V> {
  values(): AsyncIterable<V> & { toArray(): Promise<V[]> };
  keys(): AsyncIterable<K> & { toArray(): Promise<K[]> };
  entries(): AsyncIterable<readonly [K, V]> & { toArray(): Promise<(readonly [K, V])[]> };
  toArray(): Promise<V[]>;
}

export interface ReadTransaction {
  readonly clientID: string;
  readonly reason: TransactionReason;
  get(key: string): Promise<ReadonlyJSONValue | undefined>;
  has(key: string): Promise<boolean>;
  isEmpty(): Promise<boolean>;
  scan(options?: ScanNoIndexOptions): ScanResult<string>;
  scan(options: ScanIndexOptions): ScanResult<IndexKey>;
}

export interface WriteTransaction extends ReadTransaction {
  /** The id of the mutation this transaction runs. */
  readonly mutationID: number;
  /**
   * Who pushed the mutation, when it runs on the server (`reason` is
   * 'authoritative'): the user id the server's auth gave and the token's
   * claims. Undefined on the client. A mutator refuses a write by throwing.
   */
  readonly auth?: { readonly userID: string; readonly claims: Readonly<Record<string, unknown>> };
  put(key: string, value: ReadonlyJSONValue): Promise<void>;
  /** Returns whether the key existed. */
  del(key: string): Promise<boolean>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type MutatorImpl<Args = any, Return = void> = (tx: WriteTransaction, args: Args) => Return | Promise<Return>;

/** A mutator may return a value: `mutate` resolves to it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type MutatorDefs = Record<string, MutatorImpl<any, unknown>>;
