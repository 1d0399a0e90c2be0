import type { Check } from '../check';
import { expectErrorFrame } from '../expect-error';

export const mutationGapChecks: readonly Check[] = [
  {
    name: 'push/mutation-id-gap',
    required: true,
    description: 'a push that skips a mutation id is answered with InvalidPush',
    async run(ctx) {
      const a = ctx.client(await ctx.newRoom());
      await a.connect();
      const first = a.put('k', 1);
      await a.waitForAck(first.id);
      a.mutation('put', { key: 'skipped', value: 2 });
      const third = a.mutation('put', { key: 'k', value: 3 });
      a.push([third]);
      await expectErrorFrame(a.socket!, ['InvalidPush'], `a push of mutation id ${third.id} when the last processed id is ${first.id}`);
    },
  },
];
