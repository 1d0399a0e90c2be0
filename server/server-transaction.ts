import type { ReadonlyJSONValue } from '../protocol/json';
import type {
  IndexKey,
  ScanIndexOptions,
  ScanNoIndexOptions,
  ScanOptions,
  ScanResult,
  TransactionReason,
  WriteTransaction,
} from '../src/db/transaction-types';
import type { AuthData } from './auth/auth';
import type { BatchWriter } from './batch-writer';
import { checkWritableKey } from './presence/reserved-keys';
import { IndexScanNotSupportedError, InvalidKeyError, TransactionClosedError } from './errors';
import { frozenJSONCopy } from './json-copy';
import { MAX_KEY_BYTES, storedTextProblem } from './stored-text';
import { compareKeys } from './key-order';

/**
 * What a server mutator sees besides the client's transaction: who pushed.
 * On the client `tx.auth` is undefined; a mutator that must refuse a write
 * checks it when `tx.reason === 'authoritative'` (and throws: the mutation is
 * skipped, the client's optimistic change is undone by the next poke).
 */
export interface ServerWriteTransaction extends WriteTransaction {
  readonly auth: AuthData;
}

/** `tx.auth` when the mutator runs on the server, else undefined. */
export function authOf(tx: WriteTransaction): AuthData | undefined {
  return tx.reason === 'authoritative' ? (tx as Partial<ServerWriteTransaction>).auth : undefined;
}

/** The transaction a mutator runs in on the server: reads and writes the room directly. */
export class ServerTransaction implements ServerWriteTransaction {
  readonly reason: TransactionReason = 'authoritative';
  private closed = false;
  /** The last key that passed checkKey: a mutator that reads a key and then writes it has it checked once. */
  private checkedKey: string | undefined;

  constructor(
    readonly clientID: string,
    readonly mutationID: number,
    private readonly batch: BatchWriter,
    readonly auth: AuthData = { userID: '', claims: {} },
    /** Called before each read or write; a returned promise is awaited (the room yields its thread). */
    private readonly pace: () => Promise<void> | undefined = () => undefined,
  ) {}

  close(): void {
    this.closed = true;
  }

  private checkOpen(): void {
    if (this.closed) throw new TransactionClosedError();
  }

  private checkKeyOnce(key: string): void {
    // (Until a key passed, nothing is taken as checked: not even an undefined key.)
    if (this.checkedKey !== undefined && key === this.checkedKey) return;
    checkKey(key);
    this.checkedKey = key;
  }

  async get(key: string): Promise<ReadonlyJSONValue | undefined> {
    // Waits only when the slice is over (an `await undefined` would still cost a turn per call).
    const slice = this.pace();
    if (slice !== undefined) await slice;
    this.checkOpen();
    this.checkKeyOnce(key);
    return this.batch.data.get(key);
  }

  async has(key: string): Promise<boolean> {
    const slice = this.pace();
    if (slice !== undefined) await slice;
    this.checkOpen();
    this.checkKeyOnce(key);
    return this.batch.data.get(key) !== undefined;
  }

  async isEmpty(): Promise<boolean> {
    const slice = this.pace();
    if (slice !== undefined) await slice;
    this.checkOpen();
    return this.batch.data.liveCount === 0;
  }

  async put(key: string, value: ReadonlyJSONValue): Promise<void> {
    this.checkOpen();
    this.checkKeyOnce(key);
    checkWritableKey(key);
    // The value as it is now, as the client's put takes it (the mutator may change its object while this waits).
    const copy = frozenJSONCopy(key, value);
    const slice = this.pace();
    if (slice !== undefined) await slice;
    this.checkOpen();
    this.batch.write(key, copy);
  }

  async del(key: string): Promise<boolean> {
    const slice = this.pace();
    if (slice !== undefined) await slice;
    this.checkOpen();
    this.checkKeyOnce(key);
    checkWritableKey(key);
    return this.batch.write(key, undefined);
  }

  scan(options?: ScanNoIndexOptions): ScanResult<string>;
  scan(options: ScanIndexOptions): ScanResult<IndexKey>;
  scan(options?: ScanOptions): ScanResult<string> | ScanResult<IndexKey> {
    this.checkOpen();
    if (options?.indexName !== undefined) throw new IndexScanNotSupportedError(options.indexName);
    const prefix = options?.prefix ?? '';
    const start = options?.start;
    checkKey(prefix, 'scan prefix');
    if (start !== undefined) checkKey(start.key, 'scan start key');
    const startAfterPrefix = start !== undefined && compareKeys(start.key, prefix) > 0;
    const from = startAfterPrefix ? start.key : prefix;
    const exclusive = startAfterPrefix && start.exclusive === true;
    const limit = options?.limit ?? Infinity;
    const data = this.batch.data;
    const checkOpen = (): void => this.checkOpen();
    // Each step seeks past the last key returned, so writes during a scan are safe.
    return new EntryScan(function* () {
      let key = from;
      let after = exclusive;
      for (let n = 0; n < limit; n++) {
        checkOpen();
        const next = data.nextLiveKey(key, after);
        if (next === undefined || !next.startsWith(prefix)) return;
        yield [next, data.get(next)!] as const;
        key = next;
        after = true;
      }
    });
  }
}

function checkKey(key: unknown, what = 'key'): asserts key is string {
  if (typeof key !== 'string') throw new TypeError(`The ${what} must be a string, got ${key === null ? 'null' : typeof key}`);
  const problem = storedTextProblem(key, MAX_KEY_BYTES);
  if (problem !== undefined) throw new InvalidKeyError(what, key, problem);
}

type Pair = readonly [string, ReadonlyJSONValue];
type Iter<T> = AsyncIterable<T> & { toArray(): Promise<T[]> };

class EntryScan implements ScanResult<string> {
  constructor(private readonly open: () => Iterator<Pair>) {}

  [Symbol.asyncIterator](): AsyncIterator<ReadonlyJSONValue> {
    return this.values()[Symbol.asyncIterator]();
  }

  values(): Iter<ReadonlyJSONValue> {
    return this.view((p) => p[1]);
  }

  keys(): Iter<string> {
    return this.view((p) => p[0]);
  }

  entries(): Iter<Pair> {
    return this.view((p) => p);
  }

  toArray(): Promise<ReadonlyJSONValue[]> {
    return this.values().toArray();
  }

  private view<T>(map: (p: Pair) => T): Iter<T> {
    const open = this.open;
    return {
      [Symbol.asyncIterator]: () => {
        const it = open();
        return {
          next: async (): Promise<IteratorResult<T>> => {
            const r = it.next();
            return r.done ? { done: true, value: undefined } : { done: false, value: map(r.value) };
          },
          return: async (): Promise<IteratorResult<T>> => {
            it.return?.();
            return { done: true, value: undefined };
          },
        };
      },
      toArray: async () => {
        const out: T[] = [];
        for (let it = open(), r = it.next(); !r.done; r = it.next()) out.push(map(r.value));
        return out;
      },
    };
  }
}
