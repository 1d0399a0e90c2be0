/**
 * A KvStore over one IndexedDB object store.
 *
 * Writes are buffered and applied in one readwrite transaction at commit
 * (durability 'relaxed'). Reads inside a write go through that same readwrite
 * transaction while IndexedDB keeps it alive, so a read-modify-write is atomic
 * across tabs as long as the caller awaits only store calls in between; if the
 * transaction has auto-committed meanwhile a fresh one takes over. A read
 * made while a write commits places its first round of requests in that
 * write's transaction, behind its writes, instead of waiting for the commit;
 * the answer for a key that write puts or deletes is held until that commit
 * is done (a commit that aborts has the read asked again), so no reader sees
 * what was never committed. A key the write leaves alone reads there what was
 * committed before it, whatever becomes of that write: it is answered at once.
 *
 * The rounds of one readonly KvRead are therefore not one snapshot: a round
 * that rode on a write is answered with (or before) that write, and the
 * reader's next round goes to a readonly transaction of its own opened after
 * it, which may see a later write, this tab's own included (as when
 * IndexedDB ends a reader's transaction between its rounds and a fresh one
 * takes over). Callers read a head and then chunks by hash (immutable: a
 * later write does not change them), which needs no more.
 *
 * A database closed or deleted under us (another tab's versionchange, the
 * browser terminating the connection, Safari's "connection is closing") turns
 * every later call into a StoreClosedError.
 */
import type { ReadonlyJSONValue } from '../../protocol/json';
import { StoreClosedError, StoreConflictError, TransactionClosedError, assertStoreName } from './errors';
import { loadMemoryKv } from './memory-kit';
import { RWLock, type Unlock } from './rw-lock';
import type { KvLogger, KvRead, KvStore, KvWrite } from './types';

const DB_VERSION = 1;
const OBJECT_STORE = 'kv';

type TxMode = 'readonly' | 'readwrite';

export class IDBStore implements KvStore {
  readonly name: string;
  /** The native connection. */
  readonly #db: IDBDatabase;
  readonly #writeLock = new RWLock();
  /**
   * The readwrite transaction whose commit is under way: its writes are
   * placed and not all done. A read made meanwhile asks it first: a new
   * readonly transaction would wait for that commit to end, where a request
   * placed in it waits only for the writes before it. Once the writes are
   * done no read joins it (reads keep it open: one round of them may ride
   * on it, not a long chain of reads). A read asked while it is inactive
   * (between its answers) is placed as its last write is answered.
   */
  #committing: IDBTransaction | undefined;
  /** Reads waiting for the committing write's last answer (true: placed in it then; false: it failed). */
  #rides: ((active: boolean) => void)[] = [];
  /** How the commits of the writes reads rode on end (true: complete, false: aborted). */
  readonly #outcomes = new WeakMap<IDBTransaction, Promise<boolean>>();
  /** The keys each committing write puts or deletes (its pending map: asked about while it commits, before its release clears it). */
  readonly #written = new WeakMap<IDBTransaction, ReadonlyMap<string, unknown>>();
  #closed = false;
  #closedReason: string | undefined;
  /** Whether this database's object stores have getAllRecords (found out at the first prefetch). */
  getAllRecords: boolean | undefined;

  private constructor(name: string, db: IDBDatabase) {
    this.name = name;
    this.#db = db;
    db.addEventListener('versionchange', () => this.#closeUnder('database was deleted or upgraded by another connection'));
    db.addEventListener('close', () => this.#closeUnder('database connection was closed by the browser'));
  }

  static async open(name: string, factory: IDBFactory): Promise<IDBStore> {
    assertStoreName(name);
    const request = factory.open(name, DB_VERSION);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(OBJECT_STORE)) db.createObjectStore(OBJECT_STORE);
    };
    return new IDBStore(name, await requestPromise(request));
  }

  get closed(): boolean {
    return this.#closed;
  }

  async read(): Promise<KvRead> {
    this.#assertOpen();
    return new IDBRead(this, 'readonly', this.#committing);
  }

  /** @internal `tx` has its writes placed (the keys of `written`): reads may ride on it until `last` of them is done (or fails). */
  committing(tx: IDBTransaction, last: IDBRequest, written: ReadonlyMap<string, unknown>): void {
    this.#committing = tx;
    this.#written.set(tx, written);
    const end = (active: boolean) => () => {
      if (this.#committing !== tx) return;
      this.#committing = undefined;
      const rides = this.#rides;
      this.#rides = [];
      for (const ride of rides) ride(active);
    };
    last.addEventListener('success', end(true));
    last.addEventListener('error', end(false));
    tx.addEventListener('abort', end(false));
    this.#outcomes.set(
      tx,
      new Promise((resolve) => {
        tx.addEventListener('complete', () => resolve(true));
        tx.addEventListener('abort', () => resolve(false));
      }),
    );
  }

  /** @internal Resolves when `tx` (a write a read rode on) ends: true when it committed, false when it aborted. */
  committed(tx: IDBTransaction): Promise<boolean> {
    return this.#outcomes.get(tx) ?? Promise.resolve(false);
  }

  /** @internal Whether the write `tx` puts or deletes `key` (a read of it through `tx` sees that write). */
  writes(tx: IDBTransaction, key: string): boolean {
    return this.#written.get(tx)?.has(key) ?? true;
  }

  /** @internal Whether a read may still place requests in `tx` (a committing write's). */
  mayRide(tx: IDBTransaction): boolean {
    return this.#committing === tx;
  }

  /** @internal Resolves true while `tx` is active at its last write's answer (a read can be placed in it then), false when it cannot be. */
  lastAnswer(tx: IDBTransaction): Promise<boolean> {
    if (this.#committing !== tx) return Promise.resolve(false);
    return new Promise((resolve) => this.#rides.push(resolve));
  }

  /** @internal Throws StoreClosedError once the store is closed. */
  assertOpen(): void {
    this.#assertOpen();
  }

  async write(): Promise<KvWrite> {
    this.#assertOpen();
    const unlock = await this.#writeLock.write();
    try {
      this.#assertOpen();
    } catch (e) {
      unlock();
      throw e;
    }
    return new IDBWrite(this, unlock);
  }

  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#db.close();
    }
  }

  /** @internal */
  transaction(mode: TxMode): IDBTransaction {
    this.#assertOpen();
    try {
      return mode === 'readwrite'
        ? this.#db.transaction(OBJECT_STORE, mode, { durability: 'relaxed' })
        : this.#db.transaction(OBJECT_STORE, mode);
    } catch (e) {
      throw this.mapError(e, true);
    }
  }

  /** @internal Turns a failure into StoreClosedError when the connection is gone. */
  mapError(e: unknown, fromOpenTransaction = false): unknown {
    if (e instanceof StoreClosedError) return e;
    if (this.#closed) return new StoreClosedError(this.#message(), { cause: e });
    if (fromOpenTransaction && isDomError(e, 'InvalidStateError')) {
      this.#closeUnder('database connection is closing');
      return new StoreClosedError(this.#message(), { cause: e });
    }
    return e;
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreClosedError(this.#message());
  }

  #message(): string {
    return this.#closedReason === undefined ? 'Store is closed' : `Store is closed: ${this.#closedReason}`;
  }

  #closeUnder(reason: string): void {
    if (this.#closed) return;
    this.#closedReason = reason;
    this.#closed = true;
    this.#db.close();
  }
}

function isDomError(e: unknown, name: string): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === name;
}

/** A transaction that auto-committed or finished while we still use it. */
function isStaleTransaction(e: unknown): boolean {
  return isDomError(e, 'TransactionInactiveError') || isDomError(e, 'InvalidStateError');
}

/**
 * A request placed in someone else's write: its failure must not abort that
 * write (an error event not cancelled aborts its transaction) nor reach the
 * write's error listeners; the read asks again elsewhere.
 */
function riddenRequest<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = (event) => {
      event.preventDefault();
      event.stopPropagation();
      reject(request.error);
    };
  });
}

/** Reads resolve with plain structured-cloned values, so a bare promise is enough (and cheaper than a proxy). */
function requestPromise<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

class IDBRead implements KvRead {
  protected readonly store: IDBStore;
  readonly #mode: TxMode;
  #tx: IDBTransaction | undefined;
  /** #tx is a committing write's (see IDBStore.#committing): a request it fails is asked again of a transaction of our own. */
  #borrowed: boolean;
  #released = false;
  /** A request was made in the current (or an earlier) IndexedDB transaction of this one. */
  #used = false;
  /** IndexedDB ended a transaction this one had already read through, and a new one took over. */
  protected renewedAfterUse = false;

  constructor(store: IDBStore, mode: TxMode, tx: IDBTransaction | undefined) {
    this.store = store;
    this.#mode = mode;
    this.#tx = tx;
    this.#borrowed = tx !== undefined && mode === 'readonly';
  }

  async has(key: string): Promise<boolean> {
    this.assertOpen();
    return this.request((os) => os.getKey(key), key).then((k) => k !== undefined);
  }

  async get(key: string): Promise<ReadonlyJSONValue | undefined> {
    this.assertOpen();
    return this.request((os) => os.get(key) as IDBRequest<ReadonlyJSONValue | undefined>, key);
  }

  release(): void {
    this.#released = true;
    this.#tx = undefined;
  }

  protected assertOpen(): void {
    if (this.#released) throw new TransactionClosedError();
  }

  /** The live transaction, or a fresh one when IndexedDB has already committed ours. */
  protected withObjectStore<T>(fn: (os: IDBObjectStore, tx: IDBTransaction) => T): T {
    let tx = this.#tx;
    if (tx !== undefined) {
      try {
        return fn(tx.objectStore(OBJECT_STORE), tx);
      } catch (e) {
        if (!isStaleTransaction(e)) throw this.store.mapError(e);
      }
    }
    if (this.#tx !== undefined && this.#used) this.renewedAfterUse = true;
    tx = this.store.transaction(this.#mode);
    this.#tx = tx;
    this.#borrowed = false;
    try {
      return fn(tx.objectStore(OBJECT_STORE), tx);
    } catch (e) {
      throw this.store.mapError(e);
    }
  }

  /** `key`: the one key the request reads (a ride's answer for a key the write leaves alone is not held). */
  protected async request<T>(make: (os: IDBObjectStore) => IDBRequest<T>, key?: string): Promise<T> {
    if (this.#borrowed) {
      const tx = this.#tx!;
      const ridden = await this.#ride(make);
      if (ridden !== undefined) {
        this.#used = true;
        // Held until the write's commit ends where the write changes the key: that answer is only true if the commit is.
        const held = key === undefined || this.store.writes(tx, key);
        const answer = await riddenRequest(ridden).then(
          (result) => (held ? this.store.committed(tx).then((committed) => (committed ? { result } : undefined)) : { result }),
          () => undefined,
        );
        if (answer !== undefined) return answer.result;
        // The write we read through aborted, or this request failed in it: asked again in a transaction of our own.
        this.assertOpen();
        this.#stopRiding();
      }
    }
    const request = this.withObjectStore((os) => make(os));
    this.#used = true;
    try {
      return await requestPromise(request);
    } catch (e) {
      throw this.store.mapError(e);
    }
  }

  /**
   * Places a request in the committing write's transaction (#tx while
   * #borrowed): now, or when it is inactive, at its last write's answer.
   * Undefined once it takes no more reads: this read goes on in a
   * transaction of its own.
   */
  async #ride<T>(make: (os: IDBObjectStore) => IDBRequest<T>): Promise<IDBRequest<T> | undefined> {
    const tx = this.#tx!;
    const place = () => {
      // A closed store answers no new request, even in a transaction still finishing its commit.
      this.store.assertOpen();
      try {
        return make(tx.objectStore(OBJECT_STORE));
      } catch (e) {
        if (isStaleTransaction(e)) return undefined;
        throw this.store.mapError(e);
      }
    };
    let request = this.store.mayRide(tx) ? place() : undefined;
    if (request === undefined && (await this.store.lastAnswer(tx)) && this.#tx === tx) request = place();
    if (request === undefined) this.#stopRiding();
    return request;
  }

  #stopRiding(): void {
    if (!this.#borrowed) return;
    this.#tx = undefined;
    this.#borrowed = false;
  }
}

const DELETED = Symbol('deleted');

/** IDBObjectStore.getAllRecords (IndexedDB 3.0: Chromium 141+): keys and values in one request. */
interface RecordsObjectStore extends IDBObjectStore {
  getAllRecords(options: { query: IDBKeyRange }): IDBRequest<{ readonly key: IDBValidKey; readonly value: ReadonlyJSONValue }[]>;
}

function hasGetAllRecords(os: IDBObjectStore): os is RecordsObjectStore {
  return typeof (os as Partial<RecordsObjectStore>).getAllRecords === 'function';
}

class IDBWrite extends IDBRead implements KvWrite {
  readonly #pending = new Map<string, ReadonlyJSONValue | typeof DELETED>();
  /** What this transaction read, by key: a key read twice is asked of IndexedDB once. */
  readonly #read = new Map<string, Promise<ReadonlyJSONValue | undefined>>();
  #unlock: Unlock | undefined;

  constructor(store: IDBStore, unlock: Unlock) {
    super(store, 'readwrite', undefined);
    this.#unlock = unlock;
  }

  override async has(key: string): Promise<boolean> {
    this.assertOpen();
    const v = this.#pending.get(key);
    if (v !== undefined) return v !== DELETED;
    return super.has(key);
  }

  override async get(key: string): Promise<ReadonlyJSONValue | undefined> {
    this.assertOpen();
    const v = this.#pending.get(key);
    if (v !== undefined) return v === DELETED ? undefined : v;
    let read = this.#read.get(key);
    if (read === undefined) {
      read = super.get(key);
      this.#read.set(key, read);
      read.catch(() => this.#read.delete(key));
    }
    return read;
  }

  async prefetch(prefix: string): Promise<void> {
    this.assertOpen();
    // A factory without its globals (a library's IndexedDB in Node) has no IDBKeyRange here: no prefetch (the keys are read one by one).
    if (typeof IDBKeyRange === 'undefined') return;
    const range = IDBKeyRange.bound(prefix, `${prefix}\uffff`);
    let keys: readonly IDBValidKey[];
    let values: readonly ReadonlyJSONValue[];
    if (this.#hasGetAllRecords()) {
      // One request for keys and values where this database has it, not two.
      const records = await this.request((os) => (os as RecordsObjectStore).getAllRecords({ query: range }));
      keys = records.map((r) => r.key);
      values = records.map((r) => r.value);
    } else {
      [keys, values] = await Promise.all([
        this.request((os) => os.getAllKeys(range)),
        this.request((os) => os.getAll(range) as IDBRequest<ReadonlyJSONValue[]>),
      ]);
    }
    if (keys.length !== values.length) return;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      // A key read (or being read) already keeps that read.
      if (typeof key === 'string' && !this.#read.has(key)) this.#read.set(key, Promise.resolve(values[i]));
    }
  }

  /** Asked of an object store itself, once per database: a given idbFactory may lack it where the browser's has it. */
  #hasGetAllRecords(): boolean {
    return (this.store.getAllRecords ??= this.withObjectStore(hasGetAllRecords));
  }

  knownAbsent(keys: readonly string[]): void {
    for (const key of keys) if (!this.#pending.has(key) && !this.#read.has(key)) this.#read.set(key, Promise.resolve(undefined));
  }

  async put(key: string, value: ReadonlyJSONValue): Promise<void> {
    this.assertOpen();
    this.#pending.set(key, value);
  }

  async del(key: string): Promise<void> {
    this.assertOpen();
    this.#pending.set(key, DELETED);
  }

  async commit(): Promise<void> {
    this.assertOpen();
    try {
      if (this.#pending.size === 0) return;
      const pending = this.#pending;
      const tx = this.withObjectStore((os, tx) => {
        // What this transaction read may have changed since: writing now would not be atomic.
        if (this.renewedAfterUse) {
          tx.abort();
          throw new StoreConflictError();
        }
        let last: IDBRequest | undefined;
        for (const [key, value] of pending) last = value === DELETED ? os.delete(key) : os.put(value, key);
        this.store.committing(tx, last!, pending);
        return tx;
      });
      await transactionDone(tx).catch((e: unknown) => {
        throw this.store.mapError(e);
      });
    } finally {
      this.release();
    }
  }

  override release(): void {
    super.release();
    this.#pending.clear();
    this.#read.clear();
    const unlock = this.#unlock;
    this.#unlock = undefined;
    unlock?.();
  }
}

function transactionDone(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.addEventListener('complete', () => resolve());
    tx.addEventListener('error', () => reject(tx.error ?? new DOMException('Transaction failed', 'AbortError')));
    tx.addEventListener('abort', () => reject(tx.error ?? new DOMException('Transaction aborted', 'AbortError')));
  });
}

export interface OpenStoreOptions {
  /** Told when IndexedDB cannot be opened and the store falls back to memory. @default console */
  logger?: KvLogger;
  /** The IndexedDB to open. @default globalThis.indexedDB */
  idbFactory?: IDBFactory;
}

/**
 * Opens the store `name` in IndexedDB. When IndexedDB is missing or refuses to
 * open (private mode, disabled storage, a broken profile), the app keeps
 * working on a MemoryStore and the logger says so.
 */
export async function openStore(name: string, options: OpenStoreOptions = {}): Promise<KvStore> {
  assertStoreName(name);
  const logger = options.logger ?? console;
  const factory = options.idbFactory ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  try {
    if (factory === undefined) throw new Error('IndexedDB is not available');
    return await IDBStore.open(name, factory);
  } catch (e) {
    logger.warn(`Could not open IndexedDB database "${name}"; falling back to an in-memory store (data will not survive a reload).`, e);
    return new (await loadMemoryKv()).MemoryStore(name);
  }
}
