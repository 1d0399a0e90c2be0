import { startChildServer, type ChildServer } from './child-server';
import { startPostgres, type PostgresServer } from './postgres-server';

/** Server options every test node gets: quiet logs, one room worker (several nodes share 2 cores). */
const NODE_ARGS = ['--log-level', 'warn', '--room-workers', '1'];

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
}

/** A real PostgreSQL and `count` server processes (`server/cli.ts --postgres`) on one database of it. */
export async function startNodeCluster(count: number, extraArgs: readonly string[] = []): Promise<NodeCluster> {
  const postgres = await startPostgres();
  const databaseURL = await postgres.createDatabase('cluster');
  const nodes: ChildServer[] = [];
  const startNode = async () => {
    const node = await startChildServer(['--postgres', databaseURL, ...NODE_ARGS, ...extraArgs]);
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
      await Promise.all(nodes.splice(0).map((n) => n.stop('SIGTERM').catch(() => n.stop('SIGKILL'))));
      await postgres.stop();
    },
  };
}
