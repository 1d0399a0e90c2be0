import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRunning } from './test-support/child-server';
import { startNodeCluster, type NodeCluster } from './test-support/node-cluster';
import { connectStreams, expectStreamsConverged, StallWatch, streamWithDisruption, TRIAL } from './test-support/push-stream';
import { uniqueID } from './test-support/test-client';

/**
 * kill -9 of one node's real server process in the middle of a stream of
 * pushes: its clients move to another node, nothing acknowledged is lost,
 * nothing is applied twice. A trial that stops making progress fails with
 * what each client and node was at (StallWatch).
 */
const { nodes: NODES, mutations: MUTATIONS, count: TRIALS } = TRIAL;
let cluster: NodeCluster;

beforeAll(async () => {
  cluster = await startNodeCluster(NODES);
}, 60_000);
afterAll(() => cluster?.stop(), 30_000);

async function trial(n: number): Promise<void> {
  const roomID = uniqueID(`kill-${n}`);
  const nodes = [...cluster.nodes];
  const streams = await connectStreams(roomID, nodes.map((node) => node.url));
  const victim = n % NODES;
  const watch = new StallWatch(`trial ${n} (room ${roomID}, node ${nodes[victim]!.url} killed)`, streams, () => cluster.describe(roomID));
  try {
    await watch.guard(killAndMove(watch, streams, nodes, victim));
  } finally {
    watch.stop();
  }
}

async function killAndMove(watch: StallWatch, streams: Awaited<ReturnType<typeof connectStreams>>, nodes: NodeCluster['nodes'], victim: number): Promise<void> {
  watch.phase('streaming until the kill');
  const run = streamWithDisruption(streams, MUTATIONS, () => cluster.kill(nodes[victim]!));
  const { ackedBefore: ackedAtKill, disruption } = await run.disrupted;
  watch.phase('killing the node');
  await disruption;
  expect(isRunning(nodes[victim]!.pid)).toBe(false);
  const replacement = cluster.startNode();
  // The victim's clients see their socket close and move to the next node, from what they saw acknowledged.
  const movers = streams.filter((_, i) => i % NODES === victim);
  watch.phase('moving the killed node\'s clients');
  await Promise.all(movers.map((s) => s.client.until(() => s.client.closed, 'the socket of the killed node to close')));
  await Promise.all(movers.map((s) => s.moveTo(nodes[(victim + 1) % NODES]!.url)));
  for (const s of movers) {
    expect(s.client.errors, 'a reconnect from what was acknowledged is accepted').toEqual([]);
    await s.client.until(() => s.client.pokes.length > 0 || s.client.lmid >= ackedAtKill[streams.indexOf(s)]!, 'catch-up');
  }
  watch.phase('streaming to the end');
  await run.done;
  watch.phase('converging');
  await expectStreamsConverged(streams, ackedAtKill, MUTATIONS);
  watch.phase('closing the clients');
  await Promise.all(streams.map((s) => s.client.close()));
  watch.phase('starting the replacement node');
  await replacement;
}

describe('a node killed mid-stream (kill -9 of its real process)', () => {
  it(`loses nothing acknowledged and applies nothing twice, ${TRIALS} trials`, async () => {
    for (let n = 0; n < TRIALS; n++) await trial(n);
  }, 300_000);
});
