import { startChildServer, type ChildServer } from './child-server';
import { startPostgres, type PostgresServer } from './postgres-server';

/** Server options every test node gets: quiet logs, one room worker (several nodes share 2 cores). */
const NODE_ARGS = ['--log-level', 'warn', '--room-workers', '1'];
/** A node that has not shut down gracefully this long after SIGTERM is killed. */
const NODE_STOP_GRACE_MS = 5000;

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
      await Promise.allSettled(nodes.splice(0).map(stopNode));
      await postgres.stop();
    },
  };
}
