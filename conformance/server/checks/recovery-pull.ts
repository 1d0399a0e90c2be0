import { CheckFailure } from '../../shared/check-failure';
import type { Check } from '../check';
import type { ProtocolSocket } from '../../shared/protocol-socket';
import type { SyncClient } from '../sync-client';

/** Sends a recovery pull for `clientGroupID` on `puller`'s socket and returns the answer's body. */
async function recoveryPull(puller: SyncClient, clientGroupID: string, cookie: number | null) {
  const socket: ProtocolSocket = puller.socket!;
  const requestID = puller.requestID();
  const before = socket.frames.length;
  socket.send(['pull', { clientGroupID, cookie, requestID }]);
  const answer = await socket.waitFor(`the answer to the recovery pull from cookie ${JSON.stringify(cookie)}`, () => {
    for (let i = before; i < socket.frames.length; i++) {
      const message = socket.frames[i]!.message;
      if (message?.[0] === 'pull') return message[1];
    }
    return undefined;
  });
  if (answer.requestID !== requestID) {
    throw new CheckFailure('the pull answer does not echo the requestID', JSON.stringify(requestID), JSON.stringify(answer.requestID));
  }
  return answer;
}

/**
 * What a recovery pull must carry: every id in `required` (the group's changes
 * since the cookie sent), each with its value. Other clients of the group may
 * come too (unchanged ids), with their true values; nothing outside the group.
 */
function checkChanges(
  cookie: number | null,
  got: Readonly<Record<string, number>>,
  required: Readonly<Record<string, number>>,
  group: Readonly<Record<string, number>>,
): void {
  const requiredText = `at least ${JSON.stringify(required)} (the group's changes since cookie ${JSON.stringify(cookie)}); other clients of the group allowed with their ids ${JSON.stringify(group)}`;
  const missing = Object.entries(required).filter(([clientID, id]) => got[clientID] !== id);
  if (missing.length > 0) {
    throw new CheckFailure(
      `the pull answer from cookie ${JSON.stringify(cookie)} lacks the group's changes since that cookie (${missing.map(([clientID, id]) => `${clientID} → ${id}`).join(', ')})`,
      requiredText,
      JSON.stringify(got),
    );
  }
  const wrong = Object.entries(got).filter(([clientID, id]) => group[clientID] !== id);
  if (wrong.length > 0) {
    throw new CheckFailure(
      `the pull answer from cookie ${JSON.stringify(cookie)} names ids that are not the group's (${wrong.map(([clientID, id]) => `${clientID} → ${id}`).join(', ')})`,
      requiredText,
      JSON.stringify(got),
    );
  }
}

export const recoveryPullChecks: readonly Check[] = [
  {
    name: 'pull/recovery',
    required: true,
    description:
      "a recovery pull for another client group is answered, echoing the requestID, with at least that group's last mutation ids changed since the cookie sent (all of them from none); unchanged ids of the group may come too",
    async run(ctx) {
      const room = await ctx.newRoom();
      const other = ctx.client(room, { group: 'closed-tab', label: 'client O (other group)' });
      const sibling = ctx.client(room, { group: 'closed-tab', label: 'client O2 (other group)' });
      const puller = ctx.client(room, { group: 'puller', label: 'client P (pulls)' });
      await other.connect();
      await sibling.connect();
      const siblingLast = sibling.put('o2/1', 1).id;
      await sibling.waitForAck(siblingLast);
      const first = other.put('o/1', 1).id;
      await other.waitForAck(first);
      // The cookie the closed tab's group last saw: its later mutation was processed after it.
      const seen = other.view.cookie;
      const last = other.put('o/2', 2).id;
      await other.waitForAck(last);
      await puller.connect();
      const own = puller.put('p/1', 1);
      await puller.waitForAck(own.id);

      const group = { [other.clientID]: last, [sibling.clientID]: siblingLast };
      // From none (a group that never received a poke): every client of the group.
      const fromNone = await recoveryPull(puller, other.clientGroupID, null);
      checkChanges(null, fromNone.lastMutationIDChanges, group, group);
      // From the cookie the group last saw: at least O's id, changed since; O2's did not change and may be left out.
      const fromSeen = await recoveryPull(puller, other.clientGroupID, seen);
      checkChanges(seen, fromSeen.lastMutationIDChanges, { [other.clientID]: last }, group);
    },
  },
];
