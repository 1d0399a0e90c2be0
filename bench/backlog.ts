/**
 * `npm run bench -- backlog`: a client makes N increments while disconnected,
 * then reconnect() against the reference server (in this process, default
 * limits, memory storage). Times the drain until the client has no pending
 * mutation, then checks the server applied each mutation exactly once (its
 * last mutation id for the client is N, and a fresh client reads the sums).
 * RSS is the whole process's (client and in-process server): an upper bound
 * for the client's. Prints figures; never fails on speed.
 */
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import { createServer, type ServerOptions } from '../server/index';
import { conformanceMutators } from '../server/conformance-mutators';
import { MemoryStorage } from '../server/storage/memory-storage';
import { MemoryKvProvider } from '../src/kv/memory-provider';
import { Reflect } from '../src/reflect';
import { fixed, printTable } from './measure';

const BACKLOGS = [1_500, 10_000, 100_000];
/** The server's per-connection rate limit (10,000 mutations/s after a burst of 20,000 by default) sets a floor of 8 s on 100,000: one more row without it shows the rest. */
const UNLIMITED_RATE = { mutationsPerSecond: 1e9, mutationBurst: 1e9 };
const KEYS = 4;
/** Mutations awaited at once while building the backlog (bounds the promises held). */
const MUTATE_CHUNK = 1_000;
const MIB = 1024 * 1024;

interface Row {
  readonly mutations: number;
  readonly server: string;
  readonly mutateMs: number;
  readonly drainMs: number;
  /** CPU time of the process (user + system) during the drain: less sensitive to a busy machine than the wall time. */
  readonly drainCpuMs: number;
  readonly pendingUpdates: number;
  readonly peakRssMiB: number;
  readonly rssMiB: number;
  readonly exactlyOnce: boolean;
}

type Client = Reflect<typeof conformanceMutators>;

function openClient(url: string, roomID: string, namespace: string): Client {
  return new Reflect({
    userID: 'bench-user',
    roomID,
    socketOrigin: url,
    auth: 'bench-user',
    mutators: conformanceMutators,
    kvStore: new MemoryKvProvider(namespace),
    environment: { WebSocket },
    logLevel: 'error',
  });
}

function whenDrained(client: Client, onUpdate: () => void): Promise<void> {
  return new Promise((resolve) => {
    const stop = client.onPendingMutationCountChange((count) => {
      onUpdate();
      if (count === 0) {
        stop();
        resolve();
      }
    });
  });
}

function whenConnected(client: Client): Promise<void> {
  return new Promise((resolve) => {
    if (client.connectionStatus.state === 'connected') return resolve();
    const stop = client.onConnectionStatusChange((status) => {
      if (status.state !== 'connected') return;
      stop();
      resolve();
    });
  });
}

async function sums(client: Client): Promise<number[]> {
  return client.query(async (tx) => {
    const values: number[] = [];
    for (let k = 0; k < KEYS; k++) values.push(((await tx.get(`k${k}`)) as number | undefined) ?? 0);
    return values;
  });
}

let runs = 0;

async function runBacklog(mutations: number, serverOptions: ServerOptions = {}): Promise<Row> {
  const storage = new MemoryStorage();
  const server = createServer({ storage, ...serverOptions });
  const { url } = await server.listen(0, '127.0.0.1');
  // Memory stores are shared by name in a process: every run gets names of its own.
  const roomID = `backlog-${++runs}`;
  const client = openClient(url, roomID, `bench-backlog-${runs}`);
  client.disconnect();
  await client.clientGroupID;

  const mutateStart = performance.now();
  for (let done = 0; done < mutations; done += MUTATE_CHUNK) {
    const chunk: Promise<void>[] = [];
    for (let i = done; i < Math.min(done + MUTATE_CHUNK, mutations); i++) chunk.push(client.mutate.increment({ key: `k${i % KEYS}`, delta: 1 }));
    await Promise.all(chunk);
  }
  const mutateMs = performance.now() - mutateStart;

  let pendingUpdates = 0;
  const drained = whenDrained(client, () => pendingUpdates++);
  const drainStart = performance.now();
  const cpuStart = process.cpuUsage();
  client.reconnect();
  await drained;
  const drainMs = performance.now() - drainStart;
  const cpu = process.cpuUsage(cpuStart);
  const drainCpuMs = (cpu.user + cpu.system) / 1000;
  const rssMiB = process.memoryUsage().rss / MIB;

  const stored = await storage.loadRoom(roomID);
  const lastMutationID = stored?.clients.find((c) => c.clientID === client.clientID)?.lastMutationID;
  const reader = openClient(url, roomID, `bench-backlog-reader-${runs}`);
  await whenConnected(reader);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const expected = Array.from({ length: KEYS }, (_, k) => Math.floor(mutations / KEYS) + (k < mutations % KEYS ? 1 : 0));
  const [ours, theirs] = [await sums(client), await sums(reader)];
  const exactlyOnce = lastMutationID === mutations && String(ours) === String(expected) && String(theirs) === String(expected);

  await Promise.all([client.close(), reader.close()]);
  await server.close();
  return { mutations, server: serverOptions === UNLIMITED_RATE ? 'no rate limit' : 'defaults', mutateMs, drainMs, drainCpuMs, pendingUpdates, peakRssMiB: process.resourceUsage().maxRSS / 1024, rssMiB, exactlyOnce };
}

export async function runBacklogBench(): Promise<void> {
  const rows: Row[] = [];
  for (const n of BACKLOGS) rows.push(await runBacklog(n));
  rows.push(await runBacklog(BACKLOGS.at(-1)!, UNLIMITED_RATE));
  printTable(
    'Offline backlog → reconnect → every mutation acknowledged (reference server in-process)',
    ['mutations', 'server', 'mutate offline ms', 'drain ms', 'drain CPU ms', 'mutations/s', 'pending updates', 'RSS MiB', 'peak RSS MiB', 'exactly once'],
    rows.map((r) => [
      String(r.mutations),
      r.server,
      fixed(r.mutateMs, 0),
      fixed(r.drainMs, 0),
      fixed(r.drainCpuMs, 0),
      fixed(r.mutations / (r.drainMs / 1000), 0),
      String(r.pendingUpdates),
      fixed(r.rssMiB, 0),
      fixed(r.peakRssMiB, 0),
      r.exactlyOnce ? 'yes' : 'NO',
    ]),
  );
  console.log(`Load average when done: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${availableParallelism()} cores (a busy machine stretches the wall times).`);
  console.log('RSS: the whole process (client and in-process server) right after the drain; peak: the process maximum so far (rows run in this order).');
}
