import { CheckFailure } from '../../shared/check-failure';
import { describeStateDiff, statesEqual } from '../../shared/state-diff';
import type { Check } from '../check';

export const catchUpChecks: readonly Check[] = [
  {
    name: 'catch-up/reconnect-with-deletes',
    required: true,
    description: 'a client reconnecting with its cookie catches up with the puts and the deletes it missed',
    async run(ctx) {
      const room = await ctx.newRoom();
      const a = ctx.client(room, { label: 'client A (reconnects)' });
      const b = ctx.client(room, { label: 'client B', user: 1 });
      await a.connect();
      await b.connect();
      const keys = ['doc/1', 'doc/2', 'doc/3', 'doc/4'];
      let last = 0;
      for (const key of keys) last = b.put(key, `first ${key}`).id;
      await b.waitForAck(last);
      await a.waitUntil("B's four puts to reach A", (view) => keys.every((key) => view.get(key) === `first ${key}`));
      const cookieBefore = a.view.cookie;
      await a.disconnect();

      b.del('doc/1');
      b.del('doc/3');
      b.put('doc/2', 'second doc/2');
      b.put('doc/5', 'new doc/5');
      last = b.del('doc/4').id;
      await b.waitForAck(last);

      await a.connect();
      const marker = a.put('a/marker', 'back');
      await a.waitForAck(marker.id);
      await b.waitUntil("A's marker to reach B", (view) => view.get('a/marker') === 'back');
      const expected = b.view.snapshot();
      const actual = a.view.snapshot();
      if (!statesEqual(expected, actual)) {
        throw new CheckFailure(
          `after catching up from cookie ${cookieBefore}, A's state differs from B's`,
          JSON.stringify(expected),
          describeStateDiff(expected, actual),
        );
      }
    },
  },
];
