import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { systemTimers, type Timers } from '../../clock';
import { silentLogger, type Logger } from '../../logger';
import {
  checkConsecutive,
  RoomClosedError,
  StaleRoomError,
  type BatchCommit,
  type ClusterEvent,
  type RoomChanges,
  type RoomLock,
  type RoomMeta,
  type RoomState,
  type SharedStorage,
  type StoredClient,
  type StoredEntry,
  type StoredRoom,
} from '../types';
import { decodeEvent, encodeEvent, NOTIFY_CHANNEL } from './cluster-events';
import { migrate } from './migrations';
import { classifyPgError, isTransientPgError } from './pg-errors';
import { PgListener } from './pg-listener';

export interface PostgresStorageOptions {
  /** postgres://user:password@host:port/database (also what `DATABASE_URL` holds). */
  readonly connectionString: string;
  /** Pooled connections of this node; it opens one more to LISTEN. @default 10 */
  readonly poolSize?: number;
  /** A batch waiting longer than this for its room's lock (held by another node) gives up and is retried. @default 10000 */
  readonly lockTimeoutMs?: number;
  /**
   * PostgreSQL ends a session whose transaction stayed idle this long, so a
   * node stuck while holding a room's lock (a mutator that never returns)
   * cannot keep that room from every other node. Keep it above the mutator timeout.
   * @default 30000
   */
  readonly idleInTransactionTimeoutMs?: number;
  /** Waiting for a new connection to PostgreSQL. @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Names this node in its notifications, so it ignores its own. @default random */
  readonly nodeID?: string;
  /** @default the global setTimeout/clearTimeout */
  readonly timers?: Timers;
  /** @default silentLogger */
  readonly logger?: Logger;
}

export const DEFAULT_PG_POOL_SIZE = 10;
export const DEFAULT_PG_LOCK_TIMEOUT_MS = 10_000;
export const DEFAULT_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;
export const DEFAULT_PG_CONNECT_TIMEOUT_MS = 5000;
const NODE_ID_BYTES = 6;

/** PostgreSQL could not be reached when the server started. */
export class PostgresUnreachableError extends Error {
  readonly kind = 'PostgresUnreachable';
  override readonly name = 'PostgresUnreachableError';
}

interface RoomRow {
  room_id?: string;
  version: string;
  closed: boolean;
  tombstone_horizon: string;
  created_at: string;
}
interface EntryRow {
  key: string;
  value: string | null;
  version: string;
}
interface ClientRow {
  client_id: string;
  client_group_id: string;
  last_mutation_id: string;
  user_id: string | null;
}

/**
 * One or more consecutive batches in one statement (so, alone, in one implicit transaction): pass
 * `gate` (for a batch without the room's lock: lock the room's row if it is at the base version
 * $10, else fail with STALE_ROOM_SQLSTATE, or with CLOSED_ROOM_SQLSTATE when it is closed and $13 (the
 * batches acknowledge mutations); every write waits for that check, a one-time filter, so
 * the row is locked before any entry, as in every other writer); prune tombstones up to $9 (-1:
 * none; never a key written now), upsert entries and clients each with its own version ($11, $12),
 * bring the room to version $8.
 */
const writeStatement = (gate: string) => `WITH expected AS MATERIALIZED (${gate}), pruned AS (
      DELETE FROM roomsync_entries WHERE room_id = $1 AND value IS NULL AND version <= $9 AND NOT (key = ANY($2::text[])) AND EXISTS (SELECT FROM expected)
    ), entries AS (
      INSERT INTO roomsync_entries (room_id, key, value, version)
      SELECT $1, k, v, n FROM unnest($2::text[], $3::text[], $11::bigint[]) AS t(k, v, n) WHERE EXISTS (SELECT FROM expected)
      ON CONFLICT (room_id, key) DO UPDATE SET value = EXCLUDED.value, version = EXCLUDED.version
    ), clients AS (
      INSERT INTO roomsync_clients (room_id, client_id, client_group_id, last_mutation_id, user_id, version)
      SELECT $1, c, g, l, u, n FROM unnest($4::text[], $5::text[], $6::bigint[], $7::text[], $12::bigint[]) AS t(c, g, l, u, n) WHERE EXISTS (SELECT FROM expected)
      ON CONFLICT (room_id, client_id) DO UPDATE SET client_group_id = EXCLUDED.client_group_id,
        last_mutation_id = EXCLUDED.last_mutation_id, user_id = EXCLUDED.user_id, version = EXCLUDED.version
    ), room AS (
      UPDATE roomsync_rooms SET version = $8, tombstone_horizon = GREATEST(tombstone_horizon, $9) WHERE room_id = $1 AND EXISTS (SELECT FROM expected)
    )
    SELECT FROM expected`;

const ROOM_COLUMNS = 'version, closed, tombstone_horizon, created_at';
const SQL = {
  room: `SELECT ${ROOM_COLUMNS} FROM roomsync_rooms WHERE room_id = $1`,
  lockRoom: `SELECT ${ROOM_COLUMNS} FROM roomsync_rooms WHERE room_id = $1 FOR UPDATE`,
  entries: 'SELECT key, value, version FROM roomsync_entries WHERE room_id = $1',
  clients: 'SELECT client_id, client_group_id, last_mutation_id, user_id FROM roomsync_clients WHERE room_id = $1',
  // Entries (kind 0) and clients (kind 1) written after $2, or all of them when $2 is older than the
  // horizon (those deletions are forgotten): one statement, one snapshot.
  changes: `WITH since AS (SELECT CASE WHEN $2::bigint < tombstone_horizon THEN -1 ELSE $2::bigint END AS v FROM roomsync_rooms WHERE room_id = $1)
    SELECT 0 AS kind, key AS a, value AS b, NULL::text AS c, version AS n FROM roomsync_entries WHERE room_id = $1 AND version > (SELECT v FROM since)
    UNION ALL
    SELECT 1, client_id, client_group_id, user_id, last_mutation_id FROM roomsync_clients WHERE room_id = $1 AND version > (SELECT v FROM since)`,
  // $13: whether the batches acknowledge mutations, which a closed room refuses (RS002; presence-only batches still go).
  write: writeStatement('SELECT roomsync_expect_open($1, $10, $13)'),
  // The same under the room's lock, whose holder read the version already (no check: one function call less while every other node waits).
  writeLocked: writeStatement('SELECT $10::bigint'),
  notify: 'SELECT pg_notify($1, $2)',
  // A batch's hint, sent after its COMMIT (outside the transaction, so a hint that fails never fails the batch): only when the room reached the batch's version, not after a rollback.
  // Its transaction commits without waiting for a WAL flush (set_config(…, true) is SET LOCAL; the target list runs in order, before
  // pg_notify): a NOTIFY takes a transaction id, so it would wait for a flush of its own, and the next batch's commit, under the
  // room's lock on another node, would wait behind it. Nothing is lost by it: the batch was flushed, and a hint is not durable anyway.
  // Only when another node ($5 is this one) holds the room: no notification wakes the listeners of every node for nothing.
  notifyReached: `SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2) FROM roomsync_rooms WHERE room_id = $3 AND version >= $4
    AND EXISTS (SELECT FROM roomsync_holders WHERE room_id = $3 AND node_id <> $5)`,
  // This node holds the room from now on (loading it). Committed before the load's snapshot, so a batch committed after
  // that snapshot hints this node; without a WAL flush (a poll writes it again when PostgreSQL lost it). A row left from
  // an earlier load (evicted since, the poll not there yet) is renewed: a poll whose room list was taken while the room
  // was evicted must find it young (letGo), not remove it and leave this node without hints until the next poll.
  hold: `WITH async AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true))
    INSERT INTO roomsync_holders (room_id, node_id) SELECT $1, $2 FROM async ON CONFLICT (room_id, node_id) DO UPDATE SET held_since = now()`,
};

/** What roomsync_expect_open raises when the room is not at the version a batch ran against (or is gone). */
const STALE_ROOM_SQLSTATE = 'RS001';
/** What roomsync_expect_open raises when a batch that acknowledges mutations finds the room closed. */
const CLOSED_ROOM_SQLSTATE = 'RS002';

type Query = string | { readonly name: string; readonly text: string; readonly values: readonly unknown[] };

/** A named (prepared once per connection) statement. */
const q = (name: keyof typeof SQL, values: readonly unknown[]): Query => ({ name: `roomsync_${name}`, text: SQL[name], values });

/**
 * Sends the queries at once (pg's pipelining: one round trip) and waits for
 * every answer, so the connection is idle again when this settles; throws
 * the first failure.
 */
async function pipeline(client: pg.PoolClient, queries: readonly Query[]): Promise<pg.QueryResult[]> {
  const settled = await Promise.all(submit(client, queries));
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<pg.QueryResult>).value);
}

/** Sends the queries at once; each one's outcome, in order (never rejects). */
function submit(client: pg.PoolClient, queries: readonly Query[]): Promise<PromiseSettledResult<pg.QueryResult>>[] {
  // pg writes each query as it is submitted: corked, the whole pipeline leaves in one write.
  const socket = (client as unknown as { connection?: { stream?: { cork?: () => void; uncork?: () => void } } }).connection?.stream;
  socket?.cork?.();
  try {
    return queries.map((query) =>
      (typeof query === 'string' ? client.query(query) : client.query({ ...query, values: [...query.values] })).then(
        (value): PromiseSettledResult<pg.QueryResult> => ({ status: 'fulfilled', value }),
        (reason: unknown): PromiseSettledResult<pg.QueryResult> => ({ status: 'rejected', reason }),
      ),
    );
  } finally {
    socket?.uncork?.();
  }
}

const toMeta = (roomID: string, r: RoomRow): RoomMeta => ({
  roomID,
  version: Number(r.version),
  closed: r.closed,
  tombstoneHorizon: Number(r.tombstone_horizon),
  createdAt: Number(r.created_at),
});
const toEntry = (r: EntryRow): StoredEntry => ({ key: r.key, json: r.value ?? undefined, version: Number(r.version) });
const toClient = (r: ClientRow): StoredClient => ({
  clientID: r.client_id,
  clientGroupID: r.client_group_id,
  lastMutationID: Number(r.last_mutation_id),
  ...(r.user_id === null ? {} : { userID: r.user_id }),
});

/**
 * The write of consecutive batches as one: each key and client as the last
 * batch that wrote it left it, with that batch's version; the newest
 * version; the highest tombstone horizon (prune keeps every key written in
 * the group).
 */
function writeQuery(roomID: string, batches: readonly BatchCommit[], locked: boolean): Query {
  const last = batches.at(-1)!;
  let horizon = -1;
  for (const b of batches) horizon = Math.max(horizon, b.tombstoneHorizon ?? -1);
  let entries: readonly StoredEntry[] = batches[0]!.entries;
  let clients: readonly (StoredClient & { readonly version: number })[];
  if (batches.length === 1) {
    clients = last.clients.map((c) => ({ ...c, version: last.version }));
  } else {
    const byKey = new Map<string, StoredEntry>();
    const byClient = new Map<string, StoredClient & { readonly version: number }>();
    for (const b of batches) {
      for (const e of b.entries) byKey.set(e.key, e);
      for (const c of b.clients) byClient.set(c.clientID, { ...c, version: b.version });
    }
    entries = [...byKey.values()];
    clients = [...byClient.values()];
  }
  return q(locked ? 'writeLocked' : 'write', [
    roomID,
    entries.map((x) => x.key),
    entries.map((x) => x.json ?? null),
    clients.map((x) => x.clientID),
    clients.map((x) => x.clientGroupID),
    clients.map((x) => x.lastMutationID),
    clients.map((x) => x.userID ?? null),
    last.version,
    horizon,
    batches[0]!.baseVersion,
    entries.map((x) => x.version),
    clients.map((x) => x.version),
    // Without the lock: refused in a closed room unless every batch of the group is presence-only.
    ...(locked ? [] : [batches.some((b) => b.presenceOnly !== true)]),
  ]);
}

/**
 * Rooms in PostgreSQL, shared by any number of server processes. A batch is
 * one transaction holding its room's row lock: what other nodes committed
 * since is read under the lock, the batch is written with the new version and
 * committed, and a NOTIFY follows. Reads that must agree (a room, what changed
 * since a version) are one REPEATABLE READ snapshot, pipelined into one round trip.
 */
export class PostgresStorage implements SharedStorage {
  readonly shared = true;
  readonly nodeID: string;
  private readonly pool: pg.Pool;
  private listener: PgListener | undefined;

  private constructor(
    private readonly options: PostgresStorageOptions,
    private readonly logger: Logger,
  ) {
    this.nodeID = options.nodeID ?? randomBytes(NODE_ID_BYTES).toString('hex');
    this.pool = new pg.Pool({
      ...this.connectionConfig(),
      max: options.poolSize ?? DEFAULT_PG_POOL_SIZE,
      pipeline: true,
      lock_timeout: options.lockTimeoutMs ?? DEFAULT_PG_LOCK_TIMEOUT_MS,
      idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? DEFAULT_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    } as pg.PoolConfig);
    // An idle pooled connection that breaks (PostgreSQL restarted) is dropped by the pool; the next use opens a new one.
    this.pool.on('error', (error) => this.logger.warn('a pooled PostgreSQL connection failed', { error }));
    // A connection in use that breaks reports it here too (and its query fails): never an uncaught error.
    this.pool.on('connect', (client) => client.on('error', (error) => this.logger.debug('a PostgreSQL connection in use failed', { error })));
  }

  /**
   * Connects, brings the schema up to date and answers the storage; rejects
   * with PostgresUnreachableError (a one-line reason) when PostgreSQL cannot
   * be reached, or the migration's error.
   */
  static async open(options: PostgresStorageOptions): Promise<PostgresStorage> {
    const storage = new PostgresStorage(options, options.logger ?? silentLogger);
    let client: pg.PoolClient;
    try {
      client = await storage.pool.connect();
    } catch (error) {
      await storage.pool.end().catch(() => {});
      throw new PostgresUnreachableError(`PostgreSQL at ${redactURL(options.connectionString)} is unreachable: ${(error as Error).message || String(error)}`, { cause: error });
    }
    try {
      const applied = await migrate(client);
      if (applied.length > 0) storage.logger.info('PostgreSQL schema migrated', { applied });
    } catch (error) {
      client.release(true);
      await storage.pool.end().catch(() => {});
      throw error;
    }
    client.release();
    return storage;
  }

  private connectionConfig(): pg.ClientConfig {
    return {
      connectionString: this.options.connectionString,
      connectionTimeoutMillis: this.options.connectTimeoutMs ?? DEFAULT_PG_CONNECT_TIMEOUT_MS,
      application_name: `roomsync ${this.nodeID}`,
    };
  }

  /** Runs `fn` with a pooled connection; a connection that failed is discarded, transient failures become StorageUnavailableError. */
  private async withClient<T>(what: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw classifyPgError(error, what);
    }
    try {
      const result = await fn(client);
      client.release();
      return result;
    } catch (error) {
      client.release(isTransientPgError(error) ? (error as Error) : undefined);
      throw classifyPgError(error, what);
    }
  }

  async listRooms(): Promise<RoomMeta[]> {
    return this.withClient('listing rooms', async (c) => {
      const { rows } = await c.query<RoomRow & { room_id: string }>(`SELECT room_id, ${ROOM_COLUMNS} FROM roomsync_rooms ORDER BY room_id`);
      return rows.map((r) => toMeta(r.room_id, r));
    });
  }

  async countRooms(): Promise<number> {
    return this.withClient('counting rooms', async (c) => Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM roomsync_rooms')).rows[0]!.n));
  }

  async loadRoom(roomID: string): Promise<StoredRoom | undefined> {
    return this.withClient('loading a room', async (c) => {
      const [, , room, entries, clients] = await pipeline(c, [
        q('hold', [roomID, this.nodeID]),
        'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
        q('room', [roomID]),
        q('entries', [roomID]),
        q('clients', [roomID]),
        'COMMIT',
      ]);
      const row = room!.rows[0] as RoomRow | undefined;
      if (row === undefined) return undefined;
      return { meta: toMeta(roomID, row), entries: (entries!.rows as EntryRow[]).map(toEntry), clients: (clients!.rows as ClientRow[]).map(toClient) };
    });
  }

  async changesSince(roomID: string, version: number): Promise<RoomChanges | undefined> {
    return this.withClient('reading changes', async (c) => {
      const [, room, changes] = await pipeline(c, [
        'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
        q('room', [roomID]),
        q('changes', [roomID, version]),
        'COMMIT',
      ]);
      return changesOf(roomID, version, room!, changes!);
    });
  }

  async roomStates(roomIDs: readonly string[]): Promise<Map<string, RoomState>> {
    if (roomIDs.length === 0) return new Map();
    return this.withClient('reading room versions', async (c) => {
      const { rows } = await c.query<{ room_id: string; version: string; closed: boolean }>(
        'SELECT room_id, version, closed FROM roomsync_rooms WHERE room_id = ANY($1::text[])',
        [roomIDs],
      );
      return new Map(rows.map((r) => [r.room_id, { version: Number(r.version), closed: r.closed }]));
    });
  }

  async createRoom(roomID: string, createdAt: number): Promise<boolean> {
    return this.withClient('creating a room', async (c) => {
      const r = await c.query('INSERT INTO roomsync_rooms (room_id, version, created_at) VALUES ($1, 0, $2) ON CONFLICT (room_id) DO NOTHING', [roomID, createdAt]);
      return r.rowCount === 1;
    });
  }

  async setRoomClosed(roomID: string, closed: boolean): Promise<boolean> {
    return this.withClient('closing a room', async (c) => {
      const [, updated] = await pipeline(c, [
        'BEGIN',
        { name: 'roomsync_setClosed', text: 'UPDATE roomsync_rooms SET closed = $2 WHERE room_id = $1', values: [roomID, closed] },
        q('notify', [NOTIFY_CHANNEL, encodeEvent(this.nodeID, { kind: 'room', roomID })]),
        'COMMIT',
      ]);
      return updated!.rowCount === 1;
    });
  }

  async deleteRoom(roomID: string): Promise<boolean> {
    return this.withClient('deleting a room', async (c) => {
      const results = await pipeline(c, [
        'BEGIN',
        { name: 'roomsync_deleteEntries', text: 'DELETE FROM roomsync_entries WHERE room_id = $1', values: [roomID] },
        { name: 'roomsync_deleteClients', text: 'DELETE FROM roomsync_clients WHERE room_id = $1', values: [roomID] },
        { name: 'roomsync_deleteRoom', text: 'DELETE FROM roomsync_rooms WHERE room_id = $1', values: [roomID] },
        q('notify', [NOTIFY_CHANNEL, encodeEvent(this.nodeID, { kind: 'room', roomID })]),
        'COMMIT',
      ]);
      return results[3]!.rowCount === 1;
    });
  }

  async lockRoom(roomID: string, knownVersion: number): Promise<RoomLock | undefined> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw classifyPgError(error, 'locking a room');
    }
    let results: pg.QueryResult[];
    try {
      results = await pipeline(client, ['BEGIN', q('lockRoom', [roomID]), q('changes', [roomID, knownVersion])]);
    } catch (error) {
      await this.finish(client, error);
      throw classifyPgError(error, 'locking a room');
    }
    const changes = changesOf(roomID, knownVersion, results[1]!, results[2]!);
    if (changes === undefined) {
      await this.finish(client, undefined);
      return undefined;
    }
    return new PgRoomLock(this, client, roomID, changes);
  }

  /** Rolls back whatever is open and returns the connection to the pool (dropping it when it failed). */
  async finish(client: pg.PoolClient, error: unknown): Promise<void> {
    if (error !== undefined && isTransientPgError(error)) {
      client.release(error as Error);
      return;
    }
    try {
      await client.query('ROLLBACK');
      client.release();
    } catch (rollbackError) {
      client.release(rollbackError as Error);
    }
  }

  /**
   * The statements that write consecutive batches, each checking the
   * version it ran against: one for the whole group when that stores the
   * same as one per batch in turn (no batch's tombstone horizon reaches a
   * version written in the group, whose tombstones the batches after it
   * would prune: the statement's prune sees only what was there before it),
   * else one per batch.
   */
  private writeQueries(roomID: string, batches: readonly BatchCommit[], locked: boolean): Query[] {
    for (const b of batches) if (b.entries.some((x) => x.version !== b.version)) throw new Error('Every entry of a batch carries the batch\'s version');
    const base = batches[0]!.baseVersion;
    if (batches.length === 1 || batches.every((b) => (b.tombstoneHorizon ?? -1) <= base)) return [writeQuery(roomID, batches, locked)];
    return batches.map((b) => writeQuery(roomID, [b], locked));
  }

  /**
   * The hint that tells other nodes of a committed batch. Sent right after
   * COMMIT (same round trip), in a transaction of its own: a NOTIFY inside
   * the batch's transaction would hold PostgreSQL's notification lock across
   * its WAL flush, so batches of all rooms and nodes would commit one by one.
   * Lost only if this node dies between the two; the other nodes' poll then
   * catches up.
   */
  private versionHint(roomID: string, version: number): Query {
    return q('notifyReached', [NOTIFY_CHANNEL, encodeEvent(this.nodeID, { kind: 'room', roomID, version }), roomID, version, this.nodeID]);
  }

  /**
   * One round trip: one statement that locks the room's row if it is still
   * at the batch's base version and writes, then the NOTIFY. A room at
   * another version (another node committed meanwhile, or deleted it) fails
   * with StaleRoomError; nothing is written.
   */
  async commitBatch(roomID: string, batch: BatchCommit): Promise<void> {
    return this.commitBatches(roomID, [batch]);
  }

  /**
   * Consecutive batches of a room in one transaction, one round trip and one
   * WAL flush: usually one statement (the version check against the first
   * and the group's writes), else BEGIN, a write per batch (each checking
   * its base version), COMMIT; then the NOTIFY of the last version.
   */
  async commitBatches(roomID: string, batches: readonly BatchCommit[]): Promise<void> {
    checkConsecutive(batches);
    if (batches.length === 0) return;
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw classifyPgError(error, 'committing a batch');
    }
    await this.settleCommit(client, roomID, batches, false);
  }

  /**
   * Sends the batches' writes (in a transaction of their own unless `inTransaction`
   * or one statement), COMMIT when needed and the version hint at once;
   * settles once they are committed (the connection goes back to the pool
   * when the hint is answered too, which the batch does not wait for).
   */
  async settleCommit(client: pg.PoolClient, roomID: string, batches: readonly BatchCommit[], inTransaction: boolean): Promise<void> {
    let writes: Query[];
    try {
      writes = this.writeQueries(roomID, batches, inTransaction);
    } catch (error) {
      await this.finish(client, undefined);
      throw error;
    }
    const last = batches.at(-1)!;
    const hint = this.versionHint(roomID, last.version);
    const queries = inTransaction ? [...writes, 'COMMIT', hint] : writes.length === 1 ? [writes[0]!, hint] : ['BEGIN', ...writes, 'COMMIT', hint];
    const outcomes = submit(client, queries);
    const hinting = outcomes.pop()!;
    const failed = (await Promise.all(outcomes)).find((r) => r.status === 'rejected');
    if (failed !== undefined) {
      await hinting;
      await this.finish(client, failed.reason);
      const code = (failed.reason as { code?: unknown }).code;
      if (code === STALE_ROOM_SQLSTATE) throw new StaleRoomError(roomID, batches[0]!.baseVersion);
      if (code === CLOSED_ROOM_SQLSTATE) throw new RoomClosedError(roomID);
      throw classifyPgError(failed.reason, 'committing a batch');
    }
    void hinting
      .then((hinted) => {
        if (hinted.status === 'fulfilled') return client.release();
        this.logger.warn('could not notify other nodes of a batch (their poll catches up)', { error: hinted.reason });
        client.release(isTransientPgError(hinted.reason) ? (hinted.reason as Error) : undefined);
      })
      // Nothing waits for this: a throw here (a release the pool refuses) is logged, not left unhandled.
      .catch((error: unknown) => this.logger.error('returning a connection to the pool after a batch failed', { error }));
  }

  async publish(event: ClusterEvent): Promise<void> {
    await this.withClient('notifying other nodes', async (c) => {
      await c.query(q('notify', [NOTIFY_CHANNEL, encodeEvent(this.nodeID, event)]) as pg.QueryConfig);
    });
  }

  async beat(nodeID: string, staleAfterMs: number): Promise<Set<string>> {
    return this.withClient('recording this node\'s beat', async (c) => {
      const [, , live] = await pipeline(c, [
        { name: 'roomsync_beat', text: 'INSERT INTO roomsync_nodes (node_id, beat_at) VALUES ($1, now()) ON CONFLICT (node_id) DO UPDATE SET beat_at = now()', values: [nodeID] },
        // Nodes gone for a day are forgotten (a node not listed counts as gone anyway).
        { name: 'roomsync_forgetNodes', text: "DELETE FROM roomsync_nodes WHERE beat_at < now() - interval '1 day'", values: [] },
        { name: 'roomsync_liveNodes', text: "SELECT node_id FROM roomsync_nodes WHERE beat_at > now() - $1 * interval '1 millisecond'", values: [staleAfterMs] },
      ]);
      return new Set((live!.rows as { node_id: string }[]).map((r) => r.node_id));
    });
  }

  /**
   * Records the rooms this node holds now (rooms it loaded since are kept
   * anyway: a row younger than `staleAfterMs` is left alone), and that it was
   * seen now; removes the rows of nodes not seen for `staleAfterMs`. A room
   * held by no other node gets no hint of this node's batches.
   */
  async holding(roomIDs: readonly string[], staleAfterMs: number): Promise<void> {
    await this.withClient('recording the rooms this node holds', async (c) => {
      await pipeline(c, [
        'BEGIN',
        "SELECT set_config('synchronous_commit', 'off', true)",
        {
          name: 'roomsync_seen',
          text: 'INSERT INTO roomsync_holder_nodes (node_id, seen_at) VALUES ($1, now()) ON CONFLICT (node_id) DO UPDATE SET seen_at = now()',
          values: [this.nodeID],
        },
        {
          name: 'roomsync_held',
          text: 'INSERT INTO roomsync_holders (room_id, node_id) SELECT unnest($2::text[]), $1 ON CONFLICT DO NOTHING',
          values: [this.nodeID, roomIDs],
        },
        {
          name: 'roomsync_letGo',
          text: "DELETE FROM roomsync_holders WHERE node_id = $1 AND NOT (room_id = ANY($2::text[])) AND held_since < now() - $3 * interval '1 millisecond'",
          values: [this.nodeID, roomIDs, staleAfterMs],
        },
        {
          name: 'roomsync_forgetHolders',
          text: `DELETE FROM roomsync_holders h WHERE held_since < now() - $1 * interval '1 millisecond'
            AND NOT EXISTS (SELECT FROM roomsync_holder_nodes n WHERE n.node_id = h.node_id AND n.seen_at >= now() - $1 * interval '1 millisecond')`,
          values: [staleAfterMs],
        },
        { name: 'roomsync_forgetHolderNodes', text: "DELETE FROM roomsync_holder_nodes WHERE seen_at < now() - $1 * interval '1 millisecond'", values: [staleAfterMs] },
        'COMMIT',
      ]);
    });
  }

  async entriesWithPrefix(roomIDs: readonly string[], prefix: string): Promise<Map<string, StoredEntry[]>> {
    const found = new Map<string, StoredEntry[]>();
    if (roomIDs.length === 0) return found;
    return this.withClient('reading entries', async (c) => {
      // Keys compare in byte order (COLLATE "C"), so the keys with the prefix are one range (left(): no pattern characters to escape).
      const { rows } = await c.query<EntryRow & { room_id: string }>(
        'SELECT room_id, key, value, version FROM roomsync_entries WHERE room_id = ANY($1::text[]) AND left(key, $3) = $2 AND value IS NOT NULL',
        [roomIDs, prefix, [...prefix].length],
      );
      for (const r of rows) {
        let list = found.get(r.room_id);
        if (list === undefined) found.set(r.room_id, (list = []));
        list.push(toEntry(r));
      }
      return found;
    });
  }

  async listen(onEvent: (event: ClusterEvent) => void): Promise<void> {
    if (this.listener !== undefined) throw new Error('PostgresStorage is listening already');
    const listener = new PgListener({
      newConnection: () => new pg.Client(this.connectionConfig()),
      channel: NOTIFY_CHANNEL,
      onPayload: (payload) => {
        const decoded = decodeEvent(payload);
        if (decoded === undefined) this.logger.warn('ignoring a notification that is not roomsync\'s', { payload: payload.slice(0, 200) });
        else if (decoded.nodeID !== this.nodeID) onEvent(decoded.event);
      },
      onReconnected: () => onEvent({ kind: 'resync' }),
      timers: this.options.timers ?? systemTimers,
      logger: this.logger,
    });
    this.listener = listener;
    try {
      await listener.start();
    } catch (error) {
      this.listener = undefined;
      throw classifyPgError(error, 'listening for other nodes');
    }
  }

  async close(): Promise<void> {
    await this.listener?.stop();
    await this.pool.end();
  }
}

class PgRoomLock implements RoomLock {
  private done = false;

  constructor(
    private readonly storage: PostgresStorage,
    private readonly client: pg.PoolClient,
    private readonly roomID: string,
    readonly changes: RoomChanges,
  ) {}

  async commit(batch: BatchCommit): Promise<void> {
    this.settle();
    if (batch.baseVersion !== this.changes.meta.version) {
      await this.storage.finish(this.client, undefined);
      throw new StaleRoomError(this.roomID, batch.baseVersion);
    }
    await this.storage.settleCommit(this.client, this.roomID, [batch], true);
  }

  async release(): Promise<void> {
    if (this.done) return;
    this.settle();
    await this.storage.finish(this.client, undefined);
  }

  private settle(): void {
    if (this.done) throw new Error('This room lock was committed or released already');
    this.done = true;
  }
}

interface ChangeRow {
  kind: number;
  a: string;
  b: string | null;
  c: string | null;
  n: string;
}

function changesOf(roomID: string, since: number, room: pg.QueryResult, changes: pg.QueryResult): RoomChanges | undefined {
  const row = room.rows[0] as RoomRow | undefined;
  if (row === undefined) return undefined;
  const meta = toMeta(roomID, row);
  const entries: StoredEntry[] = [];
  const clients: StoredClient[] = [];
  for (const r of changes.rows as ChangeRow[]) {
    if (r.kind === 0) entries.push({ key: r.a, json: r.b ?? undefined, version: Number(r.n) });
    else clients.push({ clientID: r.a, clientGroupID: r.b!, lastMutationID: Number(r.n), ...(r.c === null ? {} : { userID: r.c }) });
  }
  return { meta, full: since < meta.tombstoneHorizon, entries, clients };
}

/** The URL without its password, for messages. */
export function redactURL(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(an unparseable connection string)';
  }
}
