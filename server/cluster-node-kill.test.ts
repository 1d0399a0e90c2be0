import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRunning, type ChildServer } from './test-support/child-server';
import { startNodeCluster, type NodeCluster } from './test-support/node-cluster';
import { pollUntil } from './test-support/event-loop';
import { hasAppState } from './test-support/app-state';
import { connectStreams, expectStreamsConverged, StallWatch, streamMutation, streamState, StreamingClient, streamWithDisruption, TRIAL } from './test-support/push-stream';
import { TestClient, uniqueID } from './test-support/test-client';

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
  await whileStarting(cluster.startNode(), () => moveAndConverge(watch, streams, nodes, victim, run, ackedAtKill));
}

async function moveAndConverge(
  watch: StallWatch,
  streams: Awaited<ReturnType<typeof connectStreams>>,
  nodes: NodeCluster['nodes'],
  victim: number,
  run: ReturnType<typeof streamWithDisruption>,
  ackedAtKill: readonly number[],
): Promise<void> {
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
}

/**
 * Runs `body` while a node starts, and waits for the start either way: a
 * body that fails leaves no start behind (the cluster's stop would miss a
 * node that joins it after). The start's own failure is reported when the
 * body passed.
 */
async function whileStarting(start: Promise<unknown>, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    await start.catch(() => {});
    throw error;
  }
  await start;
}

describe('a node killed mid-stream (kill -9 of its real process)', () => {
  it(`loses nothing acknowledged and applies nothing twice, ${TRIALS} trials`, async () => {
    for (let n = 0; n < TRIALS; n++) await trial(n);
  }, 300_000);

  it('a client whose killed node stored part of what it had in flight moves on without a gap in its ids', async () => {
    const roomID = uniqueID('partial');
    const [a, b] = cluster.nodes as [ChildServer, ChildServer];
    const total = 12;
    const stream = new StreamingClient(roomID, a.url, total, 4);
    await stream.client.ready();
    stream.fill();
    await stream.client.acked(4);
    // Node A stops taking frames: mutations 5-8 go into its socket and are never stored there.
    a.process.kill('SIGSTOP');
    stream.fill();
    expect(stream.sent).toBe(8);
    // 5 and 6 are stored through node B (as if A had stored them before it died) without the stream seeing it.
    const other = TestClient.connect(b.url, { roomID, clientID: stream.clientID, clientGroupID: stream.clientGroupID, lmid: 4 });
    await other.ready();
    other.push([streamMutation(other, 5)]);
    other.push([streamMutation(other, 6)]);
    await other.acked(6);
    await cluster.kill(a);
    await whileStarting(cluster.startNode(), async () => {
      await stream.client.until(() => stream.client.closed, 'the socket of the killed node to close');
      // Every frame of any stream fills (as in the trials); B's `connected` and catch-up poke (6 acknowledged) are read in one chunk.
      stream.onMessage = () => stream.fill();
      const moving = stream.moveTo(b.url);
      const ws = stream.client.ws;
      ws.once('open', () => ws.pause());
      await pollUntil('node B to attach the moved client', async () => (await cluster.roomConnections(b, roomID)) === 2);
      ws.resume();
      await moving;
      await stream.client.until(() => stream.done || stream.client.closed, 'every mutation acknowledged');
      expect(stream.client.errors).toEqual([]);
      expect(stream.client.closed).toBe(false);
      await stream.client.until(() => hasAppState(stream.client, streamState([stream.clientID], total)), 'the final state');
      await Promise.all([stream.client.close(), other.close()]);
    });
  }, 60_000);
});
