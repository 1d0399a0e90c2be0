/**
 * One store file as this process holds it, shared by every SqliteKvStore of
 * that file whichever provider opened it (as MemoryStore shares its data by
 * name). It owns the connections — one writer, used only under the in-process
 * write lock, and a pool of readers, each lent to one KvRead at a time — and
 * closes them once no store and no transaction holds the file any more.
 *
 * Writers are serialised twice: in this process by `lock` (better-sqlite3 is
 * synchronous, so two connections of one thread waiting on each other's
 * SQLite lock would deadlock), across processes by SQLite's write lock, taken
 * when a write transaction begins (`BEGIN IMMEDIATE`) and waited for without
 * blocking the event loop.
 */
import { statSync } from 'node:fs';
import { StoreClosedError } from '../kv/errors';
import { RWLock } from '../kv/rw-lock';
import { connect, type Connection } from './sqlite-connection';
import { StoreBusyError, isBusy, storeError } from './sqlite-errors';

/** How the connections of a file are set up (by whichever provider of this process opens it first). */
export interface SqliteFileOptions {
  readonly synchronous: 'FULL' | 'NORMAL';
  /** How long opening the file and reading wait, blocking, for the brief locks SQLite takes there. */
  readonly busyTimeoutMs: number;
}

/** How a write waits for another process's write lock. */
export interface BusyWait {
  readonly busyTimeoutMs: number;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** The first wait after finding the write lock taken; each further wait doubles, up to the maximum. */
export const BUSY_RETRY_FIRST_MS = 1;
export const BUSY_RETRY_MAX_MS = 20;
/** Reader connections kept open for later reads; more are opened while more reads run at once. */
const MAX_IDLE_READERS = 4;

interface Identity {
  readonly dev: bigint;
  readonly ino: bigint;
}

const held = new Map<string, SqliteFile>();

export class SqliteFile {
  readonly path: string;
  /** Write transactions of this file in this process run one at a time. */
  readonly lock = new RWLock();
  readonly #options: SqliteFileOptions;
  readonly #writer: Connection;
  readonly #identity: Identity | undefined;
  readonly #idleReaders: Connection[] = [];
  readonly #lentReaders = new Set<Connection>();
  #refs = 0;
  #closedReason: string | undefined;

  private constructor(path: string, storeName: string, options: SqliteFileOptions) {
    this.path = path;
    this.#options = options;
    this.#writer = connect(path, { ...options, create: storeName });
    // Writes wait for other processes asynchronously (beginWrite), never inside SQLite.
    this.#writer.db.pragma('busy_timeout = 0');
    this.#identity = identityOf(path);
  }

  /** The file at `path` (created when missing), held once more. Pair with release(). */
  static acquire(path: string, storeName: string, options: SqliteFileOptions): SqliteFile {
    let file = held.get(path);
    if (file !== undefined && !file.#stillAtPath()) file.#closeUnder('it was deleted by another process');
    file = held.get(path);
    if (file === undefined) {
      file = new SqliteFile(path, storeName, options);
      held.set(path, file);
    }
    file.retain();
    return file;
  }

  /** Closes every holder of the file at `path` in this process, as a deleted IndexedDB database closes its connections. */
  static closeForDrop(path: string): void {
    const file = held.get(path);
    if (file !== undefined) file.#closeUnder('it was deleted');
  }

  get closed(): boolean {
    return this.#closedReason !== undefined;
  }

  retain(): void {
    this.#refs++;
  }

  release(): void {
    if (--this.#refs === 0) this.#closeUnder(undefined);
  }

  assertOpen(): void {
    if (this.#closedReason !== undefined) throw new StoreClosedError(`Store is closed: ${this.#closedReason}`);
  }

  /** assertOpen, and also closes the file when another process deleted or replaced it. */
  assertStillThere(): void {
    if (this.#closedReason === undefined && !this.#stillAtPath()) this.#closeUnder('it was deleted by another process');
    this.assertOpen();
  }

  /** Takes SQLite's write lock for the writer connection, waiting (and retrying) while another process holds it. */
  async beginWrite({ now, sleep, busyTimeoutMs }: BusyWait): Promise<Connection> {
    const started = now();
    for (let attempt = 0; ; attempt++) {
      this.assertOpen();
      try {
        this.#writer.db.exec('BEGIN IMMEDIATE');
        return this.#writer;
      } catch (error) {
        if (!isBusy(error)) throw storeError(error, this.path);
      }
      const waitedMs = now() - started;
      if (waitedMs >= busyTimeoutMs) throw new StoreBusyError(this.path, waitedMs);
      await sleep(Math.min(BUSY_RETRY_FIRST_MS * 2 ** Math.min(attempt, 16), BUSY_RETRY_MAX_MS, busyTimeoutMs - waitedMs));
    }
  }

  /** Ends the writer's transaction, keeping its changes or not. */
  endWrite(commit: boolean): void {
    const db = this.#writer.db;
    if (!db.open) return;
    if (!db.inTransaction) {
      if (commit) throw new Error(`SQLite rolled back the write transaction of ${this.path} after an error; nothing was written`);
      return;
    }
    try {
      db.exec(commit ? 'COMMIT' : 'ROLLBACK');
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw storeError(error, this.path);
    }
  }

  /** A reader connection inside a read transaction: its reads see one snapshot of committed data. */
  lendReader(): Connection {
    this.assertOpen();
    const reader = this.#idleReaders.pop() ?? connect(this.path, this.#options);
    try {
      reader.db.exec('BEGIN');
    } catch (error) {
      reader.db.close();
      throw storeError(error, this.path);
    }
    this.#lentReaders.add(reader);
    return reader;
  }

  returnReader(reader: Connection): void {
    this.#lentReaders.delete(reader);
    if (!reader.db.open) return;
    try {
      if (reader.db.inTransaction) reader.db.exec('COMMIT');
    } catch {
      // Ending a read cannot lose anything: a reader that fails to is simply not reused.
      reader.db.close();
      return;
    }
    if (this.closed || this.#idleReaders.length >= MAX_IDLE_READERS) reader.db.close();
    else this.#idleReaders.push(reader);
  }

  #stillAtPath(): boolean {
    const now = identityOf(this.path);
    return now !== undefined && this.#identity !== undefined && now.dev === this.#identity.dev && now.ino === this.#identity.ino;
  }

  /** Closes the connections; with a reason, every holder now fails with StoreClosedError. */
  #closeUnder(reason: string | undefined): void {
    if (held.get(this.path) === this) held.delete(this.path);
    if (this.#closedReason !== undefined) return;
    this.#closedReason = reason ?? 'no store holds it any more';
    for (const reader of [...this.#idleReaders, ...this.#lentReaders]) reader.db.close();
    this.#idleReaders.length = 0;
    this.#lentReaders.clear();
    this.#writer.db.close();
  }
}

function identityOf(path: string): Identity | undefined {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stats === undefined ? undefined : { dev: stats.dev, ino: stats.ino };
}
