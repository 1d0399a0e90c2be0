/**
 * Stores as SQLite files in a directory, one file per store name: the durable
 * KvProvider for Node. Every provider over the same directory, in this
 * process or any other, sees the same stores; a write transaction is atomic
 * against all of their writers.
 */
import { mkdirSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { assertStoreName } from '../kv/errors';
import type { KvProvider } from '../kv/provider';
import type { KvStore } from '../kv/types';
import { storeNameOf } from './sqlite-connection';
import { storeError } from './sqlite-errors';
import { SqliteFile, type BusyWait, type SqliteFileOptions } from './sqlite-file';
import { SqliteKvStore } from './sqlite-kv-store';
import { parseStoreFileName, storeFileName } from './store-file-name';

export interface SqliteKvProviderOptions {
  /** The directory of the store files; created (with its parents) when missing. */
  readonly dataDir: string;
  /**
   * SQLite's `synchronous` setting (the files are in WAL mode). Both keep every
   * committed write across a crash or kill of the process; FULL also across a
   * power loss, at the cost of a disk sync per commit. Within one process, the
   * first provider to open a file sets it for every store of that file.
   * @default 'NORMAL'
   */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /**
   * How long a write transaction waits for another process that holds the
   * store's write lock before failing with StoreBusyError. (Opening a file and
   * reading wait, blocking, the same at most for the brief locks SQLite takes
   * there.)
   * @default 30000
   */
  readonly busyTimeoutMs?: number;
  /** The clock the busy timeout is measured with. @default Date.now */
  readonly now?: () => number;
  /** Waits between attempts to take a busy write lock. @default a setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 30_000;

/**
 * What drop() deletes, in this order: the companions SQLite keeps beside a
 * database first, so that a drop cut short never leaves a write-ahead log that
 * a new database of the same name would replay.
 */
const DROP_SUFFIXES = ['-wal', '-shm', '-journal', ''];

export class SqliteKvProvider implements KvProvider {
  readonly durable = true;
  readonly cheapCommits = true;
  /** The data directory as given, resolved against the working directory. */
  readonly dataDir: string;
  readonly #fileOptions: SqliteFileOptions;
  readonly #busyWait: BusyWait;
  #realDir: string | undefined;

  constructor(options: SqliteKvProviderOptions) {
    this.dataDir = resolve(options.dataDir);
    const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    this.#fileOptions = { synchronous: options.synchronous ?? 'NORMAL', busyTimeoutMs };
    this.#busyWait = {
      busyTimeoutMs,
      now: options.now ?? Date.now,
      sleep: options.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms))),
    };
  }

  async open(name: string): Promise<KvStore> {
    assertStoreName(name);
    const path = join(this.#dir(), storeFileName(name));
    return new SqliteKvStore(name, SqliteFile.acquire(path, name, this.#fileOptions), this.#busyWait);
  }

  async list(): Promise<readonly string[]> {
    const dir = this.#existingDir();
    if (dir === undefined) return [];
    const names: string[] = [];
    for (const fileName of readdirSync(dir).sort()) {
      const parsed = parseStoreFileName(fileName);
      if (parsed === undefined) continue;
      const name = 'name' in parsed ? parsed.name : storeNameOf(join(dir, fileName), this.#fileOptions.busyTimeoutMs);
      if (name !== undefined) names.push(name);
    }
    return names;
  }

  async drop(name: string): Promise<void> {
    assertStoreName(name);
    const dir = this.#existingDir();
    if (dir === undefined) return;
    const path = join(dir, storeFileName(name));
    SqliteFile.closeForDrop(path);
    try {
      for (const suffix of DROP_SUFFIXES) rmSync(path + suffix, { force: true });
    } catch (error) {
      throw storeError(error, path);
    }
  }

  /** The data directory, created when missing; its real path keys the files this process holds. */
  #dir(): string {
    if (this.#realDir !== undefined) return this.#realDir;
    try {
      mkdirSync(this.dataDir, { recursive: true });
      this.#realDir = realpathSync(this.dataDir);
    } catch (error) {
      throw storeError(error, this.dataDir);
    }
    return this.#realDir;
  }

  /** The data directory when it exists (list and drop create nothing). */
  #existingDir(): string | undefined {
    if (this.#realDir !== undefined) return this.#realDir;
    try {
      this.#realDir = realpathSync(this.dataDir);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
      throw storeError(error, this.dataDir);
    }
    return this.#realDir;
  }
}

/** The durable provider over `dataDir` (see SqliteKvProviderOptions). */
export function sqliteKvProvider(options: SqliteKvProviderOptions): SqliteKvProvider {
  return new SqliteKvProvider(options);
}
