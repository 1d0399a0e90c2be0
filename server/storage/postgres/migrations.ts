import type { ClientBase } from 'pg';

/**
 * The schema, as numbered steps. A database records the steps it has; a
 * server applies the missing ones on start, in one transaction, under an
 * advisory lock (several nodes may start at once). Steps are only ever added:
 * an existing step is never edited and nothing is dropped to make room.
 *
 * Keys, room and client ids are `COLLATE "C"`: byte order of UTF-8, the order
 * the client's store uses. Values are `text`, not `jsonb`, so JSON object key
 * order survives.
 */
export const MIGRATIONS: readonly { readonly version: number; readonly sql: string }[] = [
  {
    version: 1,
    sql: `
CREATE TABLE roomsync_rooms (
  room_id text COLLATE "C" PRIMARY KEY,
  version bigint NOT NULL,
  closed boolean NOT NULL DEFAULT false,
  tombstone_horizon bigint NOT NULL DEFAULT 0,
  created_at bigint NOT NULL
);
CREATE TABLE roomsync_entries (
  room_id text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value text,
  version bigint NOT NULL,
  PRIMARY KEY (room_id, key)
);
CREATE INDEX roomsync_entries_by_version ON roomsync_entries (room_id, version);
CREATE TABLE roomsync_clients (
  room_id text COLLATE "C" NOT NULL,
  client_id text COLLATE "C" NOT NULL,
  client_group_id text COLLATE "C" NOT NULL,
  last_mutation_id bigint NOT NULL,
  user_id text COLLATE "C",
  version bigint NOT NULL,
  PRIMARY KEY (room_id, client_id)
);
CREATE INDEX roomsync_clients_by_version ON roomsync_clients (room_id, version);
`,
  },
  {
    // A batch's first statement when it commits without reading the room first: it locks the room's
    // row and fails the transaction (SQLSTATE RS001) unless the room is at the version the batch ran
    // against, so the batch is written and committed in one round trip.
    version: 2,
    sql: `
CREATE FUNCTION roomsync_expect_version(p_room_id text, p_version bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM roomsync_rooms WHERE room_id = p_room_id AND version = p_version FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'roomsync room % is not at version %', p_room_id, p_version USING ERRCODE = 'RS001';
  END IF;
END $$;
`,
  },
  {
    // Node liveness: each node records a beat every poll interval; a node whose last beat is old is gone
    // (its clients' presence entries are then removed by the nodes still alive).
    version: 3,
    sql: `
CREATE TABLE roomsync_nodes (
  node_id text COLLATE "C" PRIMARY KEY,
  beat_at timestamptz NOT NULL
);
`,
  },
  {
    // Which node holds which room in memory: a batch's hint is sent only when another node holds its room (every
    // notification wakes every node's listener). A node records a room as it loads it, and the rooms it holds at
    // every poll with when it was last seen; the rows of a node not seen for a while are removed by the others.
    version: 4,
    sql: `
CREATE TABLE roomsync_holders (
  room_id text COLLATE "C" NOT NULL,
  node_id text COLLATE "C" NOT NULL,
  held_since timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (room_id, node_id)
);
CREATE TABLE roomsync_holder_nodes (
  node_id text COLLATE "C" PRIMARY KEY,
  seen_at timestamptz NOT NULL
);
`,
  },
  {
    // The gate of a batch written without the room's lock (replaces roomsync_expect_version, kept for nodes not yet upgraded):
    // besides the version (RS001), a closed room (RS002) refuses a batch that acknowledges mutations, so no push is applied
    // after the close even by a node that has not heard of it yet; a presence-only batch (a leaving client's presence) still goes.
    version: 5,
    sql: `
CREATE FUNCTION roomsync_expect_open(p_room_id text, p_version bigint, p_acknowledges boolean) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  SELECT version, closed INTO r FROM roomsync_rooms WHERE room_id = p_room_id FOR UPDATE;
  IF NOT FOUND OR r.version <> p_version THEN
    RAISE EXCEPTION 'roomsync room % is not at version %', p_room_id, p_version USING ERRCODE = 'RS001';
  END IF;
  IF r.closed AND p_acknowledges THEN
    RAISE EXCEPTION 'roomsync room % is closed', p_room_id USING ERRCODE = 'RS002';
  END IF;
END $$;
`,
  },
];

/** Any 64-bit number that other users of the database do not take for their advisory locks. */
const MIGRATION_LOCK_KEY = 7_210_425_118;

/** The database's schema is newer than this server: it refuses to touch it. */
export class SchemaTooNewError extends Error {
  readonly kind = 'SchemaTooNew';
  override readonly name = 'SchemaTooNewError';
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(`The database's roomsync schema is at version ${found}, newer than this server knows (${known}): upgrade the server`);
  }
}

/** Brings the schema to the newest version; answers the versions applied now. */
export async function migrate(client: ClientBase, migrations = MIGRATIONS): Promise<number[]> {
  const known = migrations.at(-1)?.version ?? 0;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query('CREATE TABLE IF NOT EXISTS roomsync_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM roomsync_schema');
    const current = rows[0]?.v ?? 0;
    if (current > known) throw new SchemaTooNewError(current, known);
    const applied: number[] = [];
    for (const m of migrations) {
      if (m.version <= current) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO roomsync_schema (version) VALUES ($1)', [m.version]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
