import Database from 'better-sqlite3';
import { StaleRoomError, type BatchCommit, type RoomMeta, type Storage, type StoredRoom } from './types';

export interface SqliteStorageOptions {
  /** A database file path, or ':memory:'. */
  readonly path: string;
  /**
   * SQLite's `synchronous` setting under WAL. FULL syncs the WAL on every
   * commit, so a committed batch survives a power loss as well as a kill;
   * NORMAL survives a process kill but may lose the last commits on power loss.
   * @default 'FULL'
   */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /**
   * Runs the group commit. Batches of all rooms that arrive before it runs
   * share one transaction, so one disk sync covers them all.
   * @default setImmediate (after the sockets' pending input was read)
   */
  readonly schedule?: (flush: () => void) => void;
}

interface PendingCommit {
  readonly roomID: string;
  readonly batch: BatchCommit;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS rooms (
  room_id TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  closed INTEGER NOT NULL DEFAULT 0,
  tombstone_horizon INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entries (
  room_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT,
  version INTEGER NOT NULL,
  PRIMARY KEY (room_id, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS clients (
  room_id TEXT NOT NULL,
  client_id TEXT NOT NULL,
  client_group_id TEXT NOT NULL,
  last_mutation_id INTEGER NOT NULL,
  user_id TEXT,
  PRIMARY KEY (room_id, client_id)
) WITHOUT ROWID;
`;

interface RoomRow {
  room_id: string;
  version: number;
  closed: number;
  tombstone_horizon: number;
  created_at: number;
}

/**
 * The default storage: one SQLite file in WAL mode. better-sqlite3 is
 * synchronous, so a commit has reached the file (and, with FULL, the disk)
 * when `commitBatch` resolves.
 */
export class SqliteStorage implements Storage {
  private readonly db: Database.Database;
  private readonly stmts;
  private readonly commitTx: (roomID: string, batch: BatchCommit) => void;
  private readonly commitGroup: (items: readonly PendingCommit[]) => void;
  private readonly schedule: (flush: () => void) => void;
  private pending: PendingCommit[] = [];

  constructor(options: SqliteStorageOptions) {
    this.schedule = options.schedule ?? ((flush) => setImmediate(flush));
    this.db = new Database(options.path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    this.db.exec(SCHEMA);
    const clientColumns = this.db.prepare<[], { name: string }>('PRAGMA table_info(clients)').all();
    // Databases from before clients were bound to users.
    if (!clientColumns.some((c) => c.name === 'user_id')) this.db.exec('ALTER TABLE clients ADD COLUMN user_id TEXT');
    const db = this.db;
    this.stmts = {
      listRooms: db.prepare<[], RoomRow>('SELECT * FROM rooms ORDER BY room_id'),
      countRooms: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM rooms'),
      getRoom: db.prepare<[string], RoomRow>('SELECT * FROM rooms WHERE room_id = ?'),
      entries: db.prepare<[string], { key: string; value: string | null; version: number }>(
        'SELECT key, value, version FROM entries WHERE room_id = ?',
      ),
      clients: db.prepare<[string], { client_id: string; client_group_id: string; last_mutation_id: number; user_id: string | null }>(
        'SELECT client_id, client_group_id, last_mutation_id, user_id FROM clients WHERE room_id = ?',
      ),
      createRoom: db.prepare('INSERT OR IGNORE INTO rooms (room_id, version, created_at) VALUES (?, 0, ?)'),
      setClosed: db.prepare('UPDATE rooms SET closed = ? WHERE room_id = ?'),
      deleteRoom: db.prepare('DELETE FROM rooms WHERE room_id = ?'),
      deleteEntries: db.prepare('DELETE FROM entries WHERE room_id = ?'),
      deleteClients: db.prepare('DELETE FROM clients WHERE room_id = ?'),
      putEntry: db.prepare('INSERT OR REPLACE INTO entries (room_id, key, value, version) VALUES (?, ?, ?, ?)'),
      putClient: db.prepare(
        'INSERT OR REPLACE INTO clients (room_id, client_id, client_group_id, last_mutation_id, user_id) VALUES (?, ?, ?, ?, ?)',
      ),
      pruneTombstones: db.prepare('DELETE FROM entries WHERE room_id = ? AND value IS NULL AND version <= ?'),
      setVersion: db.prepare('UPDATE rooms SET version = ? WHERE room_id = ? AND version = ?'),
      setHorizon: db.prepare('UPDATE rooms SET tombstone_horizon = max(tombstone_horizon, ?) WHERE room_id = ?'),
    };
    this.commitTx = db.transaction((roomID: string, batch: BatchCommit) => this.write(roomID, batch));
    this.commitGroup = db.transaction((items: readonly PendingCommit[]) => {
      for (const item of items) this.write(item.roomID, item.batch);
    });
  }

  private write(roomID: string, batch: BatchCommit): void {
    const s = this.stmts;
    if (s.setVersion.run(batch.version, roomID, batch.baseVersion).changes !== 1) {
      if (s.getRoom.get(roomID) === undefined) throw new Error(`Room ${roomID} does not exist`);
      throw new StaleRoomError(roomID, batch.baseVersion);
    }
    for (const e of batch.entries) s.putEntry.run(roomID, e.key, e.json ?? null, e.version);
    for (const c of batch.clients) s.putClient.run(roomID, c.clientID, c.clientGroupID, c.lastMutationID, c.userID ?? null);
    if (batch.tombstoneHorizon !== undefined) {
      s.pruneTombstones.run(roomID, batch.tombstoneHorizon);
      s.setHorizon.run(batch.tombstoneHorizon, roomID);
    }
  }

  async listRooms(): Promise<RoomMeta[]> {
    return this.stmts.listRooms.all().map(toMeta);
  }

  async countRooms(): Promise<number> {
    return this.stmts.countRooms.get()!.n;
  }

  async loadRoom(roomID: string): Promise<StoredRoom | undefined> {
    const row = this.stmts.getRoom.get(roomID);
    if (row === undefined) return undefined;
    const entries = this.stmts.entries.all(roomID).map((r) => ({ key: r.key, json: r.value ?? undefined, version: r.version }));
    const clients = this.stmts.clients.all(roomID).map((r) => ({
      clientID: r.client_id,
      clientGroupID: r.client_group_id,
      lastMutationID: r.last_mutation_id,
      ...(r.user_id === null ? {} : { userID: r.user_id }),
    }));
    return { meta: toMeta(row), entries, clients };
  }

  async createRoom(roomID: string, createdAt: number): Promise<boolean> {
    return this.stmts.createRoom.run(roomID, createdAt).changes === 1;
  }

  async setRoomClosed(roomID: string, closed: boolean): Promise<boolean> {
    return this.stmts.setClosed.run(closed ? 1 : 0, roomID).changes === 1;
  }

  async deleteRoom(roomID: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.stmts.deleteEntries.run(roomID);
      this.stmts.deleteClients.run(roomID);
      return this.stmts.deleteRoom.run(roomID).changes === 1;
    })();
  }

  commitBatch(roomID: string, batch: BatchCommit): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ roomID, batch, resolve, reject });
      if (this.pending.length === 1) this.schedule(() => this.flush());
    });
  }

  /** Commits every pending batch in one transaction; if that fails, each alone, so one bad batch fails only itself. */
  private flush(): void {
    const items = this.pending;
    this.pending = [];
    if (items.length === 0) return;
    try {
      this.commitGroup(items);
      for (const item of items) item.resolve();
      return;
    } catch {
      // fall through to one transaction per batch
    }
    for (const item of items) {
      try {
        this.commitTx(item.roomID, item.batch);
        item.resolve();
      } catch (error) {
        item.reject(error);
      }
    }
  }

  async close(): Promise<void> {
    this.flush();
    if (this.db.open) this.db.close();
  }
}

function toMeta(row: RoomRow): RoomMeta {
  return {
    roomID: row.room_id,
    version: row.version,
    closed: row.closed !== 0,
    tombstoneHorizon: row.tombstone_horizon,
    createdAt: row.created_at,
  };
}
