import { randomBytes } from 'node:crypto';
import { startChildServer, type ChildServer } from './child-server';
import { sql } from './pg-sql';
import { startPostgres, type PostgresServer } from './postgres-server';

/** Server options every test node gets: quiet logs, one room worker (several nodes share 2 cores). */
const NODE_ARGS = ['--log-level', 'warn', '--room-workers', '1'];
/** A node that has not shut down gracefully this long after SIGTERM is killed. */
const NODE_STOP_GRACE_MS = 5000;
/** How long a node's admin API may take to answer a diagnosis. */
const DESCRIBE_TIMEOUT_MS = 2000;
/** The last lines of each node's log in a diagnosis. */
const LOG_TAIL_LINES = 8;

/** SIGTERM, then SIGKILL when it does not exit in time; resolves once the PID is gone. */
async function stopNode(node: ChildServer): Promise<void> {
  const term = node.stop('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([term.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), NODE_STOP_GRACE_MS)))]);
  clearTimeout(timer);
  if (!late) return;
  node.process.kill('SIGKILL');
  await term;
}

export interface NodeCluster {
  readonly postgres: PostgresServer;
  readonly databaseURL: string;
  /** The nodes running now (a stopped one is removed). */
  readonly nodes: ChildServer[];
  /** Starts one more node on the same database. */
  startNode(): Promise<ChildServer>;
  /** Kills one node's server process with SIGKILL and resolves once its PID is gone. */
  kill(node: ChildServer): Promise<void>;
  /** Stops every node and PostgreSQL. */
  stop(): Promise<void>;
  /**
   * What the nodes and the database hold of a room, for a stuck test: each
   * node's room (its queue included) from the admin API, its last log
   * lines, the room's row and clients, and the database sessions not idle.
   */
  describe(roomID: string): Promise<string>;
  /** How many connections `node` holds in the room (its admin API). */
  roomConnections(node: ChildServer, roomID: string): Promise<number>;
}

async function nodeStats(node: ChildServer, adminKey: string): Promise<{ connections: number; rooms: { roomID: string; connections: number }[] }> {
  const res = await fetch(`${node.adminURL}/stats`, { headers: { 'x-admin-key': adminKey }, signal: AbortSignal.timeout(DESCRIBE_TIMEOUT_MS) });
  return (await res.json()) as { connections: number; rooms: { roomID: string; connections: number }[] };
}

async function describeNode(node: ChildServer, adminKey: string, roomID: string): Promise<string> {
  let room: string;
  try {
    const stats = await nodeStats(node, adminKey);
    room = `${stats.connections} connections, room ${JSON.stringify(stats.rooms.find((r) => r.roomID === roomID) ?? 'not loaded')}`;
  } catch (error) {
    room = `admin API unreachable: ${String(error)}`;
  }
  const log = node.stderr.slice(-LOG_TAIL_LINES).map((l) => `    ${l.slice(0, 400)}`);
  return [`  node ${node.url} (pid ${node.pid}): ${room}`, ...log].join('\n');
}

async function describeDatabase(url: string, roomID: string): Promise<string> {
  const [rooms, clients, sessions] = await Promise.all([
    sql(url, 'SELECT version, closed FROM roomsync_rooms WHERE room_id = $1', [roomID]),
    sql(url, 'SELECT client_id, last_mutation_id, version FROM roomsync_clients WHERE room_id = $1 ORDER BY client_id', [roomID]),
    sql(url, "SELECT application_name, state, wait_event_type, wait_event, left(query, 80) AS query FROM pg_stat_activity WHERE datname = current_database() AND state <> 'idle' AND pid <> pg_backend_pid()"),
  ]);
  return [`  database: room ${JSON.stringify(rooms)}`, `  clients ${JSON.stringify(clients)}`, `  busy sessions ${JSON.stringify(sessions)}`].join('\n');
}


/** A real PostgreSQL and `count` server processes (`server/cli.ts --postgres`) on one database of it. */
export async function startNodeCluster(count: number, extraArgs: readonly string[] = []): Promise<NodeCluster> {
  const postgres = await startPostgres();
  const databaseURL = await postgres.createDatabase('cluster');
  const nodes: ChildServer[] = [];
  // One admin key for every node, so a diagnosis can ask each one.
  const adminKey = randomBytes(18).toString('base64url');
  const startNode = async () => {
    const node = await startChildServer(['--postgres', databaseURL, ...NODE_ARGS, ...extraArgs], { env: { ROOMSYNC_ADMIN_KEY: adminKey } });
    nodes.push(node);
    return node;
  };
  try {
    // The first one migrates the schema; the others find it done.
    await startNode();
    await Promise.all(Array.from({ length: count - 1 }, startNode));
  } catch (error) {
    await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
    await postgres.stop();
    throw error;
  }
  return {
    postgres,
    databaseURL,
    nodes,
    startNode,
    async kill(node) {
      nodes.splice(nodes.indexOf(node), 1);
      await node.stop('SIGKILL');
    },
    async stop() {
      await Promise.allSettled(nodes.splice(0).map(stopNode));
      await postgres.stop();
    },
    async describe(roomID) {
      const database = await describeDatabase(databaseURL, roomID).catch((error: unknown) => `  database unreachable: ${String(error)}`);
      return ['nodes:', ...(await Promise.all(nodes.map((node) => describeNode(node, adminKey, roomID)))), database].join('\n');
    },
    async roomConnections(node, roomID) {
      return (await nodeStats(node, adminKey)).rooms.find((r) => r.roomID === roomID)?.connections ?? 0;
    },
  };
}
