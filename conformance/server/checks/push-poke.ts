import { CheckFailure } from '../../shared/check-failure';
import { describeStateDiff, statesEqual } from '../../shared/state-diff';
import type { Check } from '../check';

const CHAIN_PUSHES = 5;

export const pushPokeChecks: readonly Check[] = [
  {
    name: 'push/poke-to-pusher',
    required: true,
    description: "a push is answered with a poke carrying the patch and the pusher's new last mutation id",
    async run(ctx) {
      const a = ctx.client(await ctx.newRoom());
      await a.connect();
      const m = a.put('greeting', 'hello');
      await a.waitForAck(m.id);
      const changes = a.view.lastMutationIDChanges.find((c) => a.clientID in c);
      if (changes?.[a.clientID] !== 1) {
        throw new CheckFailure('the pusher did not get its last mutation id', `{"${a.clientID}": 1}`, JSON.stringify(changes));
      }
      if (a.view.get('greeting') !== 'hello') {
        throw new CheckFailure("the pusher's poke does not carry the put", 'greeting = "hello"', JSON.stringify(a.view.snapshot()));
      }
      ctx.assertOwnGroupOnly(a);
    },
  },
  {
    name: 'push/own-group-only',
    required: true,
    description: 'lastMutationIDChanges go to the clients of the pusher\'s group; another group gets the patch with {}',
    async run(ctx) {
      const room = await ctx.newRoom();
      const a = ctx.client(room, { group: 'g1', label: 'client A (group 1)' });
      const a2 = ctx.client(room, { group: 'g1', label: 'client A2 (group 1)' });
      const b = ctx.client(room, { group: 'g2', label: 'client B (group 2)', user: 1 });
      for (const c of [a, a2, b]) await c.connect();
      const m = a.put('shared', 1);
      await a.waitForAck(m.id);
      await a2.waitUntil("A's mutation id announced to A2 (same group)", (view) => view.lastMutationID(a.clientID) >= m.id);
      await b.waitUntil("A's put to reach B (another group)", (view) => view.get('shared') === 1);
      for (const c of [a, a2, b]) ctx.assertOwnGroupOnly(c);
    },
  },
  {
    name: 'push/cookie-chain',
    required: true,
    description: "every poke's baseCookie equals the cookie the client had; all clients reach the same state",
    async run(ctx) {
      const room = await ctx.newRoom();
      const a = ctx.client(room);
      const b = ctx.client(room, { user: 1 });
      await a.connect();
      await b.connect();
      let last = 0;
      for (let i = 0; i < CHAIN_PUSHES; i++) last = a.put(`item/${i}`, i).id;
      await a.waitForAck(last);
      await b.waitUntil(`all ${CHAIN_PUSHES} puts to reach B`, (view) => view.get(`item/${CHAIN_PUSHES - 1}`) === CHAIN_PUSHES - 1);
      if (!statesEqual(a.view.snapshot(), b.view.snapshot())) {
        throw new CheckFailure('A and B disagree after the same pokes', JSON.stringify(a.view.snapshot()), describeStateDiff(a.view.snapshot(), b.view.snapshot()));
      }
    },
  },
];
