/**
 * The client side of `npm run bench -- backlog`, in a process of its own so
 * its memory is measured alone: `backlog-client.ts URL ROOM N` makes N
 * increments offline, reconnects, waits until nothing is pending and prints
 * one JSON line with its figures. The bench runs it bundled to plain
 * JavaScript (bench/backlog.ts), so no TypeScript loader shares the process.
 */
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import { conformanceMutators } from '../server/conformance-mutators';
import { MemoryKvProvider } from '../src/kv/memory-provider';
import { Reflect } from '../src/reflect';

export const BACKLOG_KEYS = 4;
/** Mutations awaited at once while building the backlog (bounds the promises held). */
const MUTATE_CHUNK = 1_000;
const MIB = 1024 * 1024;

export interface BacklogClientResult {
  readonly clientID: string;
  readonly mutateMs: number;
  readonly drainMs: number;
  /** CPU time of this process (user + system) during the drain. */
  readonly drainCpuMs: number;
  readonly pendingUpdates: number;
  readonly rssBeforeDrainMiB: number;
  readonly rssMiB: number;
  /** Peak RSS of the process up to the end of the drain (before close(), whose persist drops the acknowledged chain). */
  readonly drainPeakRssMiB: number;
  readonly peakRssMiB: number;
  readonly sums: number[];
}

/**
 * `paced`: the event loop turns after each burst of MUTATE_CHUNK mutations,
 * as in an app whose mutations come from events (timers run: the store
 * persists while offline). Unpaced, the whole backlog is made in one run of
 * microtasks and first persisted when the drain starts.
 */
async function main(url: string, roomID: string, mutations: number, paced: boolean): Promise<BacklogClientResult> {
  const client = new Reflect({
    userID: 'bench-user',
    roomID,
    socketOrigin: url,
    auth: 'bench-user',
    mutators: conformanceMutators,
    kvStore: new MemoryKvProvider(),
    environment: { WebSocket },
    logLevel: 'error',
  });
  client.disconnect();
  await client.clientGroupID;
  const mutateStart = performance.now();
  for (let done = 0; done < mutations; done += MUTATE_CHUNK) {
    const chunk: Promise<void>[] = [];
    for (let i = done; i < Math.min(done + MUTATE_CHUNK, mutations); i++) chunk.push(client.mutate.increment({ key: `k${i % BACKLOG_KEYS}`, delta: 1 }));
    await Promise.all(chunk);
    if (paced) await new Promise((resolve) => setImmediate(resolve));
  }
  const mutateMs = performance.now() - mutateStart;
  const rssBeforeDrainMiB = process.memoryUsage().rss / MIB;

  let pendingUpdates = 0;
  const drained = new Promise<void>((resolve) => {
    const stop = client.onPendingMutationCountChange((count) => {
      pendingUpdates++;
      if (count !== 0) return;
      stop();
      resolve();
    });
  });
  const drainStart = performance.now();
  const cpuStart = process.cpuUsage();
  client.reconnect();
  await drained;
  const drainMs = performance.now() - drainStart;
  const cpu = process.cpuUsage(cpuStart);
  const rssMiB = process.memoryUsage().rss / MIB;
  const drainPeakRssMiB = process.resourceUsage().maxRSS / 1024;
  const sums = await client.query(async (tx) => {
    const values: number[] = [];
    for (let k = 0; k < BACKLOG_KEYS; k++) values.push(((await tx.get(`k${k}`)) as number | undefined) ?? 0);
    return values;
  });
  await client.close();
  return {
    clientID: client.clientID,
    mutateMs,
    drainMs,
    drainCpuMs: (cpu.user + cpu.system) / 1000,
    pendingUpdates,
    rssBeforeDrainMiB,
    rssMiB,
    drainPeakRssMiB,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    sums,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [url, roomID, n, pacing] = process.argv.slice(2);
  console.log(JSON.stringify(await main(url!, roomID!, Number(n), pacing === 'paced')));
}
