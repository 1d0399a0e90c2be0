import { CheckFailure } from '../../shared/check-failure';
import { describeStateDiff, statesEqual } from '../../shared/state-diff';
import type { Check } from '../check';
import type { CheckContext } from '../check-context';

const LATENCY_SAMPLES = 10;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function withinBudget(ctx: CheckContext, what: string, samples: readonly number[]): string {
  const figure = `${what}: median ${median(samples).toFixed(2)} ms, max ${Math.max(...samples).toFixed(2)} ms over ${samples.length}`;
  if (median(samples) > ctx.config.latencyBudgetMs) {
    throw new CheckFailure(figure, `median under ${ctx.config.latencyBudgetMs} ms`, `${median(samples).toFixed(2)} ms`);
  }
  return figure;
}

export const optionalChecks: readonly Check[] = [
  {
    name: 'optional/catch-up-after-connected',
    required: false,
    description: 'a client connecting to a room with data gets its catch-up poke right after connected, without other activity',
    async run(ctx) {
      const room = await ctx.newRoom();
      const writer = ctx.client(room);
      await writer.connect();
      writer.put('x', 1);
      const last = writer.put('y', 2).id;
      await writer.waitForAck(last);
      const late = ctx.client(room, { user: 1, label: 'late joiner' });
      await late.connect();
      // Its state, not its cookie: a server may write keys of its own (presence) as clients connect.
      await late.waitUntil("a catch-up poke with the room's data", (view) => view.pokeCount > 0 && statesEqual(writer.view.snapshot(), view.snapshot())).catch((error: unknown) => {
        throw new CheckFailure("the catch-up poke does not carry the room's data", JSON.stringify(writer.view.snapshot()), `${describeStateDiff(writer.view.snapshot(), late.view.snapshot())} (${(error as Error).message})`);
      });
    },
  },
  {
    name: 'optional/pong-latency',
    required: false,
    description: 'a ping is answered within the latency budget',
    async run(ctx) {
      const client = ctx.client(await ctx.newRoom());
      await client.connect();
      const samples: number[] = [];
      for (let i = 0; i < LATENCY_SAMPLES; i++) {
        const start = ctx.env.clock.now();
        await client.ping();
        samples.push(ctx.env.clock.now() - start);
      }
      return withinBudget(ctx, 'ping → pong', samples);
    },
  },
  {
    name: 'optional/push-poke-round-trip',
    required: false,
    description: 'a push is answered with its poke within the latency budget',
    async run(ctx) {
      const client = ctx.client(await ctx.newRoom());
      await client.connect();
      const samples: number[] = [];
      for (let i = 0; i < LATENCY_SAMPLES; i++) {
        const start = ctx.env.clock.now();
        const m = client.put('round-trip', i);
        await client.waitForAck(m.id);
        samples.push(ctx.env.clock.now() - start);
      }
      return withinBudget(ctx, 'push → poke', samples);
    },
  },
];
