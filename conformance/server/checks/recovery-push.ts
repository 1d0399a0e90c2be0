import { PUSH_VERSION } from '../../../src/protocol';
import { CheckFailure } from '../../shared/check-failure';
import type { Check } from '../check';

export const recoveryPushChecks: readonly Check[] = [
  {
    name: 'push/recovery-other-group',
    required: true,
    description: "a push for another client group of the same user (mutation recovery) is applied, and that group's pull answer reflects it",
    async run(ctx) {
      const room = await ctx.newRoom();
      const closedTab = ctx.client(room, { group: 'closed-tab', label: 'client C (closed tab)' });
      const rescuer = ctx.client(room, { group: 'rescuer', label: 'client R (recovers)' });
      await closedTab.connect();
      await closedTab.waitForAck(closedTab.put('c/1', 1).id);
      await closedTab.disconnect();
      // The closed tab's second mutation never left it; another tab of the same user pushes it under its group.
      const left = closedTab.mutation('put', { key: 'c/2', value: 2 });
      await rescuer.connect();
      const socket = rescuer.socket!;
      socket.send([
        'push',
        {
          timestamp: left.timestamp,
          clientGroupID: closedTab.clientGroupID,
          mutations: [left],
          pushVersion: PUSH_VERSION,
          schemaVersion: ctx.config.schemaVersion,
          requestID: rescuer.requestID(),
        },
      ]);
      await rescuer.waitUntil("the recovered mutation's write in a poke", (view) => view.get('c/2') === 2);
      const requestID = rescuer.requestID();
      socket.send(['pull', { clientGroupID: closedTab.clientGroupID, cookie: null, requestID }]);
      const answer = await socket.waitFor('the answer to the recovery pull', () => {
        for (const frame of socket.frames) if (frame.message?.[0] === 'pull' && frame.message[1].requestID === requestID) return frame.message[1];
        return undefined;
      });
      const errors = socket.frames.filter((f) => f.message?.[0] === 'error');
      if (errors.length > 0) throw new CheckFailure('the recovery push was refused', 'no error frame', errors[0]!.text);
      if (answer.lastMutationIDChanges[closedTab.clientID] !== left.id) {
        throw new CheckFailure(
          "the pull answer does not reflect the recovered mutation",
          JSON.stringify({ [closedTab.clientID]: left.id }),
          JSON.stringify(answer.lastMutationIDChanges),
        );
      }
    },
  },
];
