import { CheckFailure } from '../../shared/check-failure';
import type { Check } from '../check';
import { expectErrorFrame } from '../expect-error';

export const mutationGapChecks: readonly Check[] = [
  {
    name: 'push/mutation-id-gap',
    required: true,
    description: 'a push that skips a mutation id is answered with InvalidPush',
    async run(ctx) {
      const a = ctx.client(await ctx.newRoom());
      const socket = await a.connect();
      const first = a.put('k', 1);
      await a.waitForAck(first.id);
      a.mutation('put', { key: 'skipped', value: 2 });
      const third = a.mutation('put', { key: 'k', value: 3 });
      a.push([third]);
      const situation = `a push of mutation id ${third.id} when the last processed id is ${first.id}`;
      const expected = `["error", "InvalidPush", …] for ${situation}`;
      // Fail at once when the server processes the mutation instead of refusing it.
      const outcome = await socket
        .waitFor(`an error frame for ${situation}`, () => {
          if (socket.frames.some((f) => f.message?.[0] === 'error')) return 'error';
          return a.view.lastMutationID(a.clientID) >= third.id ? 'processed' : undefined;
        }, { allowErrors: true })
        .catch((error: unknown) => {
          if (error instanceof CheckFailure) throw new CheckFailure(error.message, expected, error.actual);
          throw error;
        });
      if (outcome === 'processed') {
        throw new CheckFailure(`the server processed mutation ${third.id} although mutation ${first.id + 1} never came`, expected, socket.recentFrames());
      }
      await expectErrorFrame(socket, ['InvalidPush'], situation);
    },
  },
];
