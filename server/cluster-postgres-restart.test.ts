import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeCluster, type NodeCluster } from './test-support/node-cluster';
import { connectStreams, expectStreamsConverged, StallWatch, streamWithDisruption, TRIAL } from './test-support/push-stream';
import { uniqueID } from './test-support/test-client';

/**
 * PostgreSQL restarted in the middle of a stream of pushes to 3 nodes: the
 * nodes keep their clients, batches wait and are retried (nothing is
 * acknowledged while PostgreSQL is away), nothing acknowledged is lost and
 * nothing is applied twice. A trial that stops making progress fails with
 * what each client and node was at (StallWatch).
 */
const { nodes: NODES, mutations: MUTATIONS, count: TRIALS } = TRIAL;
let cluster: NodeCluster;

beforeAll(async () => {
  cluster = await startNodeCluster(NODES);
}, 60_000);
afterAll(() => cluster?.stop(), 30_000);

/** How long a PostgreSQL restart may take before the trial counts as stuck. */
const RESTART_STALL_MS = 120_000;

async function trial(n: number): Promise<void> {
  const roomID = uniqueID(`restart-${n}`);
  const streams = await connectStreams(roomID, cluster.nodes.map((node) => node.url));
  const oldPid = cluster.postgres.pid();
  const watch = new StallWatch(`trial ${n} (room ${roomID})`, streams, () => cluster.describe(roomID));
  try {
    await watch.guard(
      (async () => {
        watch.phase('streaming until the restart');
        const run = streamWithDisruption(streams, MUTATIONS, () => cluster.postgres.restart());
        const { ackedBefore: ackedAtRestart, disruption } = await run.disrupted;
        // No frame arrives while PostgreSQL restarts: a slow restart is not a stall.
        watch.phase('restarting PostgreSQL', RESTART_STALL_MS);
        await disruption;
        expect(cluster.postgres.pid()).not.toBe(oldPid);
        watch.phase('streaming to the end');
        await run.done;
        watch.phase('converging');
        await expectStreamsConverged(streams, ackedAtRestart, MUTATIONS);
      })(),
    );
  } finally {
    watch.stop();
  }
  // The nodes kept their clients through the outage.
  for (const s of streams) {
    expect(s.client.errors).toEqual([]);
    expect(s.client.closed).toBe(false);
  }
  await Promise.all(streams.map((s) => s.client.close()));
}

describe('PostgreSQL restarted mid-stream', () => {
  it(`loses nothing acknowledged and applies nothing twice, ${TRIALS} trials`, async () => {
    for (let n = 0; n < TRIALS; n++) await trial(n);
    // The outages were met: batches waited for PostgreSQL and were stored once it was back.
    const logs = cluster.nodes.flatMap((node) => node.stderr);
    expect(logs.some((line) => line.includes('storage unavailable; the batch waits and is retried'))).toBe(true);
    expect(logs.some((line) => line.includes('PostgreSQL listener connection lost; reconnecting'))).toBe(true);
  }, 300_000);
});
