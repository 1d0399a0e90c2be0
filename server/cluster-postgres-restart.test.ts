import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasAppState } from './test-support/app-state';
import { startNodeCluster, type NodeCluster } from './test-support/node-cluster';
import { streamState, StreamingClient } from './test-support/push-stream';
import { uniqueID } from './test-support/test-client';

/**
 * PostgreSQL restarted in the middle of a stream of pushes to 3 nodes: the
 * nodes keep their clients, batches wait and are retried (nothing is
 * acknowledged while PostgreSQL is away), nothing acknowledged is lost and
 * nothing is applied twice.
 */
const NODES = 3;
const CLIENTS = 6;
const MUTATIONS = 24;
const IN_FLIGHT = 4;
const TRIALS = 20;
let cluster: NodeCluster;

beforeAll(async () => {
  cluster = await startNodeCluster(NODES);
}, 60_000);
afterAll(() => cluster?.stop(), 30_000);

async function trial(n: number): Promise<void> {
  const roomID = uniqueID(`restart-${n}`);
  const streams = Array.from({ length: CLIENTS }, (_, i) => new StreamingClient(roomID, cluster.nodes[i % NODES]!.url, MUTATIONS, IN_FLIGHT));
  await Promise.all(streams.map((s) => s.client.ready()));
  const restartAfter = Math.floor(CLIENTS * MUTATIONS * (0.2 + 0.5 * Math.random()));
  const ackedTotal = () => streams.reduce((sum, s) => sum + s.acked, 0);
  let restarting: Promise<void> | undefined;
  let ackedAtRestart: number[] = [];
  let restartStarted = () => {};
  const started = new Promise<void>((resolve) => (restartStarted = resolve));
  const done = new Promise<void>((resolve) => {
    const step = () => {
      if (restarting === undefined && ackedTotal() >= restartAfter) {
        ackedAtRestart = streams.map((s) => s.acked);
        restarting = cluster.postgres.restart();
        restartStarted();
      }
      for (const s of streams) s.fill();
      if (streams.every((s) => s.done)) resolve();
    };
    for (const s of streams) s.onMessage = step;
    step();
  });
  await started;
  const oldPid = cluster.postgres.pid();
  await restarting;
  expect(cluster.postgres.pid()).not.toBe(oldPid);
  await done;
  const expected = streamState(streams.map((s) => s.clientID), MUTATIONS);
  for (const [i, s] of streams.entries()) {
    expect(s.acked).toBeGreaterThanOrEqual(ackedAtRestart[i]!);
    await s.client.until(() => hasAppState(s.client, expected), 'the final state');
    expect(s.client.errors).toEqual([]);
    expect(s.client.closed).toBe(false);
    expect(s.client.outOfOrder).toEqual([]);
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
