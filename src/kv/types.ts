/**
 * The key/value store under the dag: IndexedDB in browsers, memory in tests
 * and as a fallback. Contract between kv/ (implements it) and dag/ (uses it).
 */
import type { ReadonlyJSONValue } from '../../protocol/json';

export type { ReadonlyJSONValue };

export interface KvRead {
  has(key: string): Promise<boolean>;
  get(key: string): Promise<ReadonlyJSONValue | undefined>;
  /** Ends the transaction; further calls fail. Idempotent. */
  release(): void;
}

export interface KvWrite extends KvRead {
  /**
   * A hint: reads every key under `prefix` at once, so that later gets of
   * them in this transaction are answered from memory (one request instead
   * of one round per dependent get). A store may do nothing. Meant for a
   * small set of keys (records), not for data.
   */
  prefetch?(prefix: string): Promise<void>;
  /**
   * A hint: the caller knows these keys are not stored (e.g. what another
   * record says cannot exist yet), so later gets of them in this transaction
   * answer undefined without a request. A store may do nothing. A key put,
   * deleted or read in this transaction already keeps what it has.
   */
  knownAbsent?(keys: readonly string[]): void;
  put(key: string, value: ReadonlyJSONValue): Promise<void>;
  del(key: string): Promise<void>;
  /** Applies every put and del of this transaction at once, then releases it. */
  commit(): Promise<void>;
}

export interface KvStore {
  read(): Promise<KvRead>;
  /** Write transactions of one store run one at a time. */
  write(): Promise<KvWrite>;
  close(): Promise<void>;
  readonly closed: boolean;
}

/** Where kv/ reports what it recovers from. */
export interface KvLogger {
  warn(message: string, ...details: unknown[]): void;
}
