/**
 * One better-sqlite3 connection to a store file, with its statements
 * prepared. The file holds one table of keys and JSON texts, the store's name
 * (for file names too long to hold it) and an application id that tells our
 * files from other SQLite databases.
 */
import Database from 'better-sqlite3';
import { StoreCorruptError, storeError } from './sqlite-errors';

/** 'RMSY': marks a roomsync store file. */
const APPLICATION_ID = 0x524d5359;

const SCHEMA = `
CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE meta (name TEXT NOT NULL);
`;

export interface Connection {
  readonly db: Database.Database;
  get(key: string): string | undefined;
  has(key: string): boolean;
  put(key: string, json: string): void;
  del(key: string): void;
}

export interface ConnectOptions {
  /** How long SQLite itself waits, blocking, for a lock other connections hold. */
  readonly busyTimeoutMs: number;
  readonly synchronous: 'FULL' | 'NORMAL';
  /** Creates and initialises the file first, when missing, for the store of this name. */
  readonly create?: string;
}

/** Opens a connection to a store file. */
export function connect(path: string, { busyTimeoutMs, synchronous, create }: ConnectOptions): Connection {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { timeout: busyTimeoutMs, fileMustExist: create === undefined });
    if (create !== undefined) initialize(db, path, create);
    db.pragma(`synchronous = ${synchronous}`);
    const get = db.prepare<[string], string>('SELECT value FROM kv WHERE key = ?').pluck();
    const has = db.prepare<[string], number>('SELECT 1 FROM kv WHERE key = ?').pluck();
    const put = db.prepare<[string, string]>('INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    const del = db.prepare<[string]>('DELETE FROM kv WHERE key = ?');
    return {
      db,
      get: (key) => get.get(key),
      has: (key) => has.get(key) !== undefined,
      put: (key, json) => void put.run(key, json),
      del: (key) => void del.run(key),
    };
  } catch (error) {
    db?.close();
    throw storeError(error, path);
  }
}

/**
 * Turns on WAL and creates the schema once (safe when several processes do it
 * at once), and refuses a database that is not ours.
 */
function initialize(db: Database.Database, path: string, storeName: string): void {
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
  if (db.pragma('application_id', { simple: true }) === APPLICATION_ID) return;
  db.transaction(() => {
    const applicationID = db.pragma('application_id', { simple: true });
    if (applicationID === APPLICATION_ID) return;
    const objects = db.prepare('SELECT count(*) FROM sqlite_schema').pluck().get() as number;
    if (applicationID !== 0 || objects > 0) throw new StoreCorruptError(path);
    db.exec(SCHEMA);
    db.prepare('INSERT INTO meta (name) VALUES (?)').run(storeName);
    db.pragma(`application_id = ${APPLICATION_ID}`);
  }).immediate();
}

/** The store name a file was created for, or undefined when it is not a readable store file. */
export function storeNameOf(path: string, busyTimeoutMs: number): string | undefined {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { timeout: busyTimeoutMs, fileMustExist: true });
    if (db.pragma('application_id', { simple: true }) !== APPLICATION_ID) return undefined;
    const name = db.prepare('SELECT name FROM meta').pluck().get();
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}
