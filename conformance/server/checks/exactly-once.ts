import { CheckFailure } from '../../shared/check-failure';
import type { Check } from '../check';
import type { SyncClient } from '../sync-client';

const COUNTER = 'counter';

function expectCounter(client: SyncClient, expected: number, why: string): void {
  const actual = client.view.get(COUNTER);
  if (actual !== expected) {
    throw new CheckFailure(`${client.label}: ${why}`, `${COUNTER} = ${expected}`, `${COUNTER} = ${JSON.stringify(actual)}`);
  }
}

export const exactlyOnceChecks: readonly Check[] = [
  {
    name: 'exactly-once/duplicate-push',
    required: true,
    description: 'a push of already processed mutation ids is ignored',
    async run(ctx) {
      const room = await ctx.newRoom();
      const a = ctx.client(room);
      const b = ctx.client(room, { user: 1 });
      await a.connect();
      await b.connect();
      const first = a.increment(COUNTER, 1);
      await a.waitForAck(first.id);
      a.push([first]);
      const marker = a.put('marker', 'after duplicate');
      await a.waitForAck(marker.id);
      await b.waitUntil('the marker put to reach B', (view) => view.get('marker') === 'after duplicate');
      expectCounter(a, 1, 'the duplicate increment was applied again');
      expectCounter(b, 1, 'the duplicate increment was applied again');
      await a.ping();
    },
  },
  {
    name: 'exactly-once/after-reconnect',
    required: true,
    description: 'a client that reconnects without having seen its ack and re-sends its mutations gets them applied once',
    async run(ctx) {
      const room = await ctx.newRoom();
      const a = ctx.client(room);
      const b = ctx.client(room, { user: 1 });
      await a.connect();
      await b.connect();
      const first = a.increment(COUNTER, 1);
      await a.waitForAck(first.id);
      await a.disconnect();
      // As if the ack never arrived: no cookie, lmid 0, every mutation re-sent.
      await a.connect({ baseCookie: null, lmid: 0 });
      const second = a.mutation('increment', { key: COUNTER, delta: 1 });
      a.push([first, second]);
      await a.waitForAck(second.id);
      await b.waitUntil("A's second increment to reach B", (view) => typeof view.get(COUNTER) === 'number' && (view.get(COUNTER) as number) >= 2);
      expectCounter(a, 2, 'the re-sent mutation was applied twice (or the new one not at all)');
      expectCounter(b, 2, 'the re-sent mutation was applied twice (or the new one not at all)');
    },
  },
];
