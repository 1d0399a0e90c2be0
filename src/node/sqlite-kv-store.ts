/**
 * A KvStore in one SQLite file (see sqlite-file.ts for how the file is shared).
 *
 * Values are kept as JSON text, so they come back exactly as JSON would carry
 * them (object key order, `"__proto__"` keys). A write transaction holds the
 * file's write lock from write() to commit() or release(), in this process and
 * against every other process, so a read-modify-write never interleaves with
 * another writer; its changes go into SQLite as they are made and become
 * visible, and durable against a crash of the process, when commit() resolves.
 * A read sees one snapshot of committed data from its first get on.
 *
 * close() stops new transactions; those already begun may still finish (as in
 * IndexedDB). Once the file is dropped, here or by another process, every call
 * fails with StoreClosedError.
 */
import type { ReadonlyJSONValue } from '../../protocol/json';
import { StoreClosedError, TransactionClosedError } from '../kv/errors';
import type { KvRead, KvStore, KvWrite } from '../kv/types';
import type { Connection } from './sqlite-connection';
import { storeError } from './sqlite-errors';
import type { BusyWait, SqliteFile } from './sqlite-file';

export class SqliteKvStore implements KvStore {
  readonly name: string;
  readonly #file: SqliteFile;
  readonly #busyWait: BusyWait;
  #closed = false;

  /** Takes over one hold of `file` (SqliteFile.acquire), given back by close(). */
  constructor(name: string, file: SqliteFile, busyWait: BusyWait) {
    this.name = name;
    this.#file = file;
    this.#busyWait = busyWait;
  }

  /** The database file. */
  get path(): string {
    return this.#file.path;
  }

  get closed(): boolean {
    return this.#closed || this.#file.closed;
  }

  async read(): Promise<KvRead> {
    this.#assertOpen();
    this.#file.assertStillThere();
    this.#file.retain();
    try {
      return new SqliteRead(this.#file, this.#file.lendReader());
    } catch (error) {
      this.#file.release();
      throw error;
    }
  }

  async write(): Promise<KvWrite> {
    this.#assertOpen();
    this.#file.retain();
    let unlock: (() => void) | undefined;
    try {
      unlock = await this.#file.lock.write();
      this.#file.assertStillThere();
      return new SqliteWrite(this.#file, await this.#file.beginWrite(this.#busyWait), unlock);
    } catch (error) {
      unlock?.();
      this.#file.release();
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#file.release();
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreClosedError();
    this.#file.assertOpen();
  }
}

class SqliteRead implements KvRead {
  protected readonly file: SqliteFile;
  protected readonly conn: Connection;
  #ended = false;

  constructor(file: SqliteFile, conn: Connection) {
    this.file = file;
    this.conn = conn;
  }

  async has(key: string): Promise<boolean> {
    this.assertOpen();
    return this.run(() => this.conn.has(key));
  }

  async get(key: string): Promise<ReadonlyJSONValue | undefined> {
    this.assertOpen();
    const json = this.run(() => this.conn.get(key));
    return json === undefined ? undefined : (JSON.parse(json) as ReadonlyJSONValue);
  }

  release(): void {
    this.end(() => this.file.returnReader(this.conn));
  }

  protected assertOpen(): void {
    if (this.#ended) throw new TransactionClosedError();
    this.file.assertOpen();
  }

  /** Ends the transaction once: `finish` gives the connection back, then the file is released. */
  protected end(finish: () => void): void {
    if (this.#ended) return;
    this.#ended = true;
    try {
      finish();
    } finally {
      this.file.release();
    }
  }

  /** Runs a statement; a failure because the file was dropped meanwhile is a StoreClosedError. */
  protected run<R>(fn: () => R): R {
    try {
      return fn();
    } catch (error) {
      this.file.assertOpen();
      throw storeError(error, this.file.path);
    }
  }
}

class SqliteWrite extends SqliteRead implements KvWrite {
  readonly #unlock: () => void;

  constructor(file: SqliteFile, conn: Connection, unlock: () => void) {
    super(file, conn);
    this.#unlock = unlock;
  }

  async put(key: string, value: ReadonlyJSONValue): Promise<void> {
    this.assertOpen();
    const json = JSON.stringify(value) as string | undefined;
    if (json === undefined) throw new TypeError(`Cannot store ${typeof value} under "${key}": not a JSON value`);
    this.run(() => this.conn.put(key, json));
  }

  async del(key: string): Promise<void> {
    this.assertOpen();
    this.run(() => this.conn.del(key));
  }

  async commit(): Promise<void> {
    try {
      this.assertOpen();
    } catch (error) {
      this.release();
      throw error;
    }
    this.#finish(true);
  }

  override release(): void {
    this.#finish(false);
  }

  #finish(commit: boolean): void {
    this.end(() => {
      try {
        this.file.endWrite(commit);
      } finally {
        this.#unlock();
      }
    });
  }
}
