import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedState, framesInSendingOrder, scenarioArbitrary, toMutation, type Scenario } from '../conformance/server/convergence-model';
import { appState, hasAppState } from './test-support/app-state';
import { startNodeCluster, type NodeCluster } from './test-support/node-cluster';
import { TestClient, uniqueID } from './test-support/test-client';

/** 3 server processes on one real PostgreSQL; 10 clients spread over them push at random. */
const NODES = 3;
const CLIENTS = 10;
const RUNS = 12;
let cluster: NodeCluster;

beforeAll(async () => {
  cluster = await startNodeCluster(NODES);
}, 60_000);
afterAll(() => cluster?.stop(), 30_000);

async function runScenario(scenario: Scenario): Promise<void> {
  const roomID = uniqueID('converge');
  const groups = new Map<number, string>();
  const clients = scenario.clients.map((plan, i) => {
    let group = groups.get(plan.group);
    if (group === undefined) groups.set(plan.group, (group = uniqueID('g')));
    // A group is one user's (a group is the local store of one user and room).
    return TestClient.connect(cluster.nodes[i % NODES]!.url, { roomID, clientGroupID: group, token: `user-${plan.group}` });
  });
  try {
    await Promise.all(clients.map((c) => c.ready()));
    // Every client's frames, sent interleaved as the scenario says, without waiting for acks.
    const frames = framesInSendingOrder(scenario, (i, op) => {
      const { name, args } = toMutation(i, op);
      return clients[i]!.mutation(name, args);
    });
    for (const [i, frame] of frames) clients[i]!.push(frame);
    const expected = expectedState(scenario);
    await Promise.all(
      clients.map(async (c, i) => {
        await c.acked(scenario.clients[i]!.ops.length);
        await c.until(() => hasAppState(c, expected), 'the model state', 10_000).catch((error: unknown) => {
          throw new Error(`client ${i} on node ${i % NODES}: expected ${JSON.stringify(expected)}, has ${JSON.stringify(appState(c))}`, { cause: error });
        });
      }),
    );
    for (const c of clients) {
      expect(c.outOfOrder).toEqual([]);
      expect(c.errors).toEqual([]);
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

describe('3 nodes on one PostgreSQL', () => {
  it('10 clients over the nodes, random concurrent pushes: all converge, every mutation applied exactly once', async () => {
    const scenarios = scenarioArbitrary({ minClients: CLIENTS, maxClients: CLIENTS, maxGroups: 4, maxMutations: 12 });
    await fc.assert(fc.asyncProperty(scenarios, runScenario), { numRuns: RUNS, endOnFailure: true });
  }, 180_000);
});
