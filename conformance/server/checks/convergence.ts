import fc from 'fast-check';
import { CheckFailure } from '../../shared/check-failure';
import { describeStateDiff, statesEqual } from '../../shared/state-diff';
import type { Check } from '../check';
import type { CheckContext } from '../check-context';
import { expectedState, framesInSendingOrder, scenarioArbitrary, toMutation, type Scenario } from '../convergence-model';
import type { SyncClient } from '../sync-client';

/** Runs one scenario in a fresh room; throws CheckFailure on the first broken invariant. */
async function runScenario(ctx: CheckContext, scenario: Scenario): Promise<void> {
  const room = await ctx.newRoom();
  const clients = scenario.clients.map((plan, index) =>
    // The clients of a group are one user's (a group is the local store of one user and room, SPEC §3).
    ctx.client(room, { group: `${room}/g${plan.group}`, user: plan.group, label: `client ${index} (group ${plan.group})` }),
  );
  try {
    await Promise.all(clients.map((client) => client.connect()));

    // Every client's frames, prepared up front, then sent interleaved.
    const frames = framesInSendingOrder(scenario, (index, op) => {
      const { name, args } = toMutation(index, op);
      return clients[index]!.mutation(name, args);
    });
    for (const [index, frame] of frames) clients[index]!.push(frame);

    const expected = expectedState(scenario);
    await Promise.all(
      clients.map(async (client, index) => {
        const lastID = scenario.clients[index]!.ops.length;
        if (lastID > 0) await client.waitForAck(lastID);
        await client.waitUntil('its state to equal the model', (view) => statesEqual(view.snapshot(), expected)).catch((error: unknown) => {
          if (!(error instanceof CheckFailure) || client.view.chainBreaks.length > 0) throw error;
          throw new CheckFailure(`${client.label} did not converge: ${error.message}`, JSON.stringify(expected), describeStateDiff(expected, client.view.snapshot()));
        });
        checkOwnAcks(client, lastID);
      }),
    );
    await Promise.all(
      clients.map(async (client) => {
        const mates = clients.filter((mate, i) => mate !== client && mate.clientGroupID === client.clientGroupID && scenario.clients[i]!.ops.length > 0);
        for (const mate of mates) {
          const mateLast = scenario.clients[clients.indexOf(mate)]!.ops.length;
          await client.waitUntil(`the last mutation id of ${mate.label} (same group) to be announced`, (view) => view.lastMutationID(mate.clientID) >= mateLast);
        }
        ctx.assertOwnGroupOnly(client);
      }),
    );
    ctx.assertChainsUnbroken();
    ctx.assertAllFramesValid();
  } finally {
    await Promise.all(clients.map((client) => client.disconnect()));
  }
}

/** The ids announced for the pusher itself never go back and end at its last mutation. */
function checkOwnAcks(client: SyncClient, lastID: number): void {
  const seen = client.view.lastMutationIDChanges.flatMap((changes) => (client.clientID in changes ? [changes[client.clientID]!] : []));
  for (let i = 1; i < seen.length; i++) {
    if (seen[i]! < seen[i - 1]!) {
      throw new CheckFailure(`${client.label}: its own last mutation id went backwards`, 'non-decreasing ids', seen.join(' → '));
    }
  }
  const final = seen.length === 0 ? 0 : seen[seen.length - 1]!;
  if (final !== lastID) {
    throw new CheckFailure(`${client.label}: the last mutation id announced to the pusher is not its last mutation`, String(lastID), seen.join(' → ') || 'none');
  }
}

export const convergenceChecks: readonly Check[] = [
  {
    name: 'convergence/random-concurrent-pushes',
    required: true,
    description: 'under random concurrent pushes every client converges to the model, acks reach every client of the group and end at the last id, cookies chain',
    async run(ctx) {
      const { runs, seed, ...bounds } = ctx.config.convergence;
      const details = await fc.check(
        fc.asyncProperty(scenarioArbitrary(bounds), (scenario) => runScenario(ctx, scenario)),
        { numRuns: runs, endOnFailure: true, ...(seed === undefined ? {} : { seed }) },
      );
      if (!details.failed) return `${details.numRuns} random scenarios (seed ${details.seed})`;
      const cause = details.errorInstance;
      const scenario = JSON.stringify(details.counterexample?.[0]);
      const replay = `replay with "convergence": {"seed": ${details.seed}}`;
      if (cause instanceof CheckFailure) {
        throw new CheckFailure(`${cause.message} — scenario ${scenario}; ${replay}`, cause.expected, cause.actual);
      }
      throw new CheckFailure(`${cause instanceof Error ? cause.message : String(cause)} — scenario ${scenario}; ${replay}`);
    },
  },
];
