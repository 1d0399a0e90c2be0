import { CheckFailure } from '../../shared/check-failure';
import type { Check } from '../check';

export const recoveryPullChecks: readonly Check[] = [
  {
    name: 'pull/recovery',
    required: true,
    description: "a pull for another client group is answered with that group's last mutation ids and the requestID",
    async run(ctx) {
      const room = await ctx.newRoom();
      const other = ctx.client(room, { group: 'closed-tab', label: 'client O (other group)' });
      const sibling = ctx.client(room, { group: 'closed-tab', label: 'client O2 (other group)' });
      const puller = ctx.client(room, { group: 'puller', label: 'client P (pulls)' });
      await other.connect();
      await sibling.connect();
      other.put('o/1', 1);
      const last = other.put('o/2', 2).id;
      const siblingLast = sibling.put('o2/1', 1).id;
      await other.waitForAck(last);
      await sibling.waitForAck(siblingLast);
      await puller.connect();
      const own = puller.put('p/1', 1);
      await puller.waitForAck(own.id);

      const socket = puller.socket!;
      const requestID = puller.requestID();
      socket.send(['pull', { clientGroupID: other.clientGroupID, cookie: puller.view.cookie, requestID }]);
      const answer = await socket.waitFor('the answer to the recovery pull', () => {
        for (const frame of socket.frames) if (frame.message?.[0] === 'pull') return frame.message[1];
        return undefined;
      });
      const expected = { [other.clientID]: last, [sibling.clientID]: siblingLast };
      if (answer.requestID !== requestID) {
        throw new CheckFailure('the pull answer does not echo the requestID', JSON.stringify(requestID), JSON.stringify(answer.requestID));
      }
      const got = answer.lastMutationIDChanges;
      const keys = Object.keys(got).sort();
      const wrong =
        keys.join() !== Object.keys(expected).sort().join() || Object.entries(expected).some(([clientID, id]) => got[clientID] !== id);
      if (wrong) {
        throw new CheckFailure(
          "the pull answer does not carry exactly the other group's last mutation ids",
          JSON.stringify(expected),
          JSON.stringify(got),
        );
      }
    },
  },
];
