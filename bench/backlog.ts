/**
 * `npm run bench -- backlog`: a client (in a process of its own, so its
 * memory is measured alone) makes N increments while disconnected, then
 * reconnect() against the reference server (in this process, default limits,
 * memory storage). Times the drain until the client has no pending mutation,
 * (one more 100,000 row paced: the event loop turns between bursts of mutations, so the
 * store persists while offline, as in an app), then checks the server applied each mutation exactly once (its last
 * mutation id for the client is N, and a fresh client reads the sums).
 * Prints figures; never fails on speed.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { WebSocket } from 'ws';
import { createServer, type ServerOptions } from '../server/index';
import { conformanceMutators } from '../server/conformance-mutators';
import { MemoryStorage } from '../server/storage/memory-storage';
import { MemoryKvProvider } from '../src/kv/memory-provider';
import { Reflect } from '../src/reflect';
import { BACKLOG_KEYS, type BacklogClientResult } from './backlog-client';
import { fixed, printTable } from './measure';

const BACKLOGS = [1_500, 10_000, 100_000];
/** One more row without the server's per-connection rate limit shows what it costs. */
const UNLIMITED_RATE = { mutationsPerSecond: 1e9, mutationBurst: 1e9 };
const CLIENT_SCRIPT = fileURLToPath(new URL('./backlog-client.ts', import.meta.url));

interface Row extends BacklogClientResult {
  readonly mutations: number;
  readonly server: string;
  readonly exactlyOnce: boolean;
}

/**
 * The client script bundled to plain JavaScript (its packages imported from
 * node_modules), in a directory of its own under .tmp/ (next to node_modules,
 * which the bundle resolves them from). Run under a TypeScript loader
 * (node --import tsx), the client process also held the loader's thread and
 * its transforms, about 37 MiB of RSS before the first mutation, which no app
 * ships: the RSS rows measured the loader as well as the client.
 */
async function bundleClient(): Promise<{ readonly script: string; readonly remove: () => Promise<void> }> {
  const root = fileURLToPath(new URL('../.tmp/', import.meta.url));
  await mkdir(root, { recursive: true });
  const dir = await mkdtemp(`${root}backlog-client-`);
  const script = `${dir}/backlog-client.mjs`;
  await build({ entryPoints: [CLIENT_SCRIPT], outfile: script, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
  return { script, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs the bundled client script as a real child process (plain node) and reads its one JSON line. */
function runClient(script: string, url: string, roomID: string, mutations: number, paced: boolean): Promise<BacklogClientResult> {
  return new Promise((resolve, reject) => {
    const args = [script, url, roomID, String(mutations), paced ? 'paced' : 'burst'];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`backlog client exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!) as BacklogClientResult);
    });
  });
}

function whenConnected(client: Reflect<typeof conformanceMutators>): Promise<void> {
  return new Promise((resolve) => {
    if (client.connectionStatus.state === 'connected') return resolve();
    const stop = client.onConnectionStatusChange((status) => {
      if (status.state !== 'connected') return;
      stop();
      resolve();
    });
  });
}

let runs = 0;

async function runBacklog(script: string, mutations: number, serverOptions: ServerOptions = {}, paced = false): Promise<Row> {
  const storage = new MemoryStorage();
  const server = createServer({ storage, ...serverOptions });
  const { url } = await server.listen(0, '127.0.0.1');
  const roomID = `backlog-${++runs}`;
  try {
    const result = await runClient(script, url, roomID, mutations, paced);
    const stored = await storage.loadRoom(roomID);
    const lastMutationID = stored?.clients.find((c) => c.clientID === result.clientID)?.lastMutationID;
    const reader = new Reflect({ userID: 'bench-reader', roomID, socketOrigin: url, auth: 'bench-reader', mutators: conformanceMutators, kvStore: new MemoryKvProvider(`backlog-reader-${runs}`), environment: { WebSocket }, logLevel: 'error' });
    await whenConnected(reader);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const theirs = await reader.query(async (tx) => {
      const values: number[] = [];
      for (let k = 0; k < BACKLOG_KEYS; k++) values.push(((await tx.get(`k${k}`)) as number | undefined) ?? 0);
      return values;
    });
    await reader.close();
    const expected = Array.from({ length: BACKLOG_KEYS }, (_, k) => Math.floor(mutations / BACKLOG_KEYS) + (k < mutations % BACKLOG_KEYS ? 1 : 0));
    const exactlyOnce = lastMutationID === mutations && String(result.sums) === String(expected) && String(theirs) === String(expected);
    const server = `${serverOptions === UNLIMITED_RATE ? 'no rate limit' : 'defaults'}${paced ? ', paced' : ''}`;
    return { ...result, mutations, server, exactlyOnce };
  } finally {
    await server.close();
  }
}

export async function runBacklogBench(): Promise<void> {
  const rows: Row[] = [];
  const client = await bundleClient();
  try {
    for (const n of BACKLOGS) rows.push(await runBacklog(client.script, n));
    rows.push(await runBacklog(client.script, BACKLOGS.at(-1)!, UNLIMITED_RATE));
    rows.push(await runBacklog(client.script, BACKLOGS.at(-1)!, {}, true));
  } finally {
    await client.remove();
  }
  printTable(
    'Offline backlog → reconnect → every mutation acknowledged (client in a process of its own; reference server in the bench process)',
    ['mutations', 'server', 'mutate offline ms', 'drain ms', 'drain CPU ms', 'mutations/s', 'pending updates', 'client RSS before drain MiB', 'after MiB', 'peak to drained MiB', 'peak MiB', 'exactly once'],
    rows.map((r) => [
      String(r.mutations),
      r.server,
      fixed(r.mutateMs, 0),
      fixed(r.drainMs, 0),
      fixed(r.drainCpuMs, 0),
      fixed(r.mutations / (r.drainMs / 1000), 0),
      String(r.pendingUpdates),
      fixed(r.rssBeforeDrainMiB, 0),
      fixed(r.rssMiB, 0),
      fixed(r.drainPeakRssMiB, 0),
      fixed(r.peakRssMiB, 0),
      r.exactlyOnce ? 'yes' : 'NO',
    ]),
  );
  console.log(`Load average when done: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${availableParallelism()} cores (a busy machine stretches the wall times).`);
  console.log("'paced': the event loop turns after each burst of 1,000 offline mutations (as in an app; the store persists while offline); otherwise the backlog is made in one run of microtasks and first persisted when the drain starts.");
  console.log('RSS: the client process alone (its script bundled to plain JavaScript, no TypeScript loader in the process), before and after the drain, its peak up to the end of the drain and its peak overall (with close(), whose persist drops the acknowledged chain; each row a fresh process).');
}
