import { PROTOCOL_VERSION } from '../../../src/protocol';
import { CheckFailure } from '../../shared/check-failure';
import type { Check } from '../check';
import type { CheckContext } from '../check-context';
import { expectRefusal } from '../expect-error';
import type { SyncClient } from '../sync-client';

/** The connect parameters a server may not do without. baseCookie is not among them: a missing one means none (see missingBaseCookie). */
const REQUIRED_CONNECT_PARAMS = ['clientID', 'clientGroupID', 'roomID', 'ts', 'lmid', 'wsid'] as const;
const COOKIE_LEAD = 1000;
const LMID_LEAD = 5;

/** A client the server knows: it pushed one mutation, saw it acknowledged, and disconnected. */
async function knownClient(ctx: CheckContext): Promise<SyncClient> {
  const a = ctx.client(await ctx.newRoom());
  await a.connect();
  const m = a.put('known', true);
  await a.waitForAck(m.id);
  await a.disconnect();
  return a;
}

const missingParamChecks: Check[] = REQUIRED_CONNECT_PARAMS.map((param) => ({
  name: `connect/missing-${param}`,
  required: true,
  description: `a connect request without ${param} is refused with InvalidConnectionRequest`,
  async run(ctx) {
    const a = ctx.client(await ctx.newRoom());
    const url = new URL(a.connectURL());
    url.searchParams.delete(param);
    const socket = await a.open(url.toString());
    await expectRefusal(socket, ['InvalidConnectionRequest'], `a connect request without ${param}`);
  },
}));

/**
 * PROTOCOL: the original server reads a connect without baseCookie as none,
 * like an empty one; SPEC §7 only says "empty if none" (a client always sends
 * it). So a server may refuse the request as incomplete, or accept it — and
 * then it must mean none: the room's existing data arrives from baseCookie
 * null. Accepting and reading it as anything else fails.
 */
const missingBaseCookie: Check = {
  name: 'connect/missing-baseCookie',
  required: true,
  description:
    'a connect request without baseCookie is read as none (connected, then the room from baseCookie null) or refused with InvalidConnectionRequest',
  async run(ctx) {
    const room = await ctx.newRoom();
    const writer = ctx.client(room, { label: 'client W (writes first)' });
    await writer.connect();
    const seed = writer.put('seed', 'before A came');
    await writer.waitForAck(seed.id);
    const a = ctx.client(room, { label: 'client A (no baseCookie)' });
    const url = new URL(a.connectURL());
    url.searchParams.delete('baseCookie');
    const socket = await a.open(url.toString());
    const first = await socket.waitFor('connected or an error', () => socket.frames.find((f) => f.message?.[0] === 'connected' || f.message?.[0] === 'error'), {
      allowErrors: true,
    });
    if (first.message?.[0] === 'error') {
      await expectRefusal(socket, ['InvalidConnectionRequest'], 'a connect request without baseCookie');
      return;
    }
    // A's own mutation is acknowledged by a poke that must follow from A's cookie: a server that read the
    // missing baseCookie as anything but none breaks the chain here instead of leaving A waiting.
    const marker = a.put('a/marker', true);
    try {
      await a.waitUntil("the room's existing data from baseCookie null, then the ack of A's mutation", (view) => view.get('seed') === 'before A came' && view.lastMutationID(a.clientID) >= marker.id);
    } catch (error) {
      if (error instanceof CheckFailure) {
        throw new CheckFailure(
          `${a.label}: the server accepted a connect without baseCookie but did not read it as none`,
          'after connected, a poke from baseCookie null carrying the room (as for an empty baseCookie)',
          error.actual,
        );
      }
      throw error;
    }
  },
};

export const connectErrorChecks: readonly Check[] = [
  {
    name: 'connect/version-not-supported',
    required: true,
    description: `a connect path of another protocol version (v${PROTOCOL_VERSION + 1}) is refused with VersionNotSupported`,
    async run(ctx) {
      const a = ctx.client(await ctx.newRoom());
      const socket = await a.open(a.connectURL({}, PROTOCOL_VERSION + 1));
      await expectRefusal(socket, ['VersionNotSupported'], `the path /api/sync/v${PROTOCOL_VERSION + 1}/connect`);
    },
  },
  ...missingParamChecks,
  missingBaseCookie,
  {
    name: 'connect/lmid-ahead',
    required: true,
    description: 'a connect whose lmid is ahead of the server\'s record for the client is refused',
    async run(ctx) {
      const a = await knownClient(ctx);
      const lmid = a.view.lastMutationID(a.clientID) + LMID_LEAD;
      const socket = await a.open(a.connectURL({ lmid }));
      await expectRefusal(socket, ['InvalidConnectionRequest', 'UnexpectedLastMutationID'], `lmid ${lmid} when the server processed 1`);
    },
  },
  {
    name: 'connect/base-cookie-ahead',
    required: true,
    description: "a connect whose baseCookie is ahead of the room's version is refused",
    async run(ctx) {
      const a = await knownClient(ctx);
      const baseCookie = (a.view.cookie ?? 0) + COOKIE_LEAD;
      const socket = await a.open(a.connectURL({ baseCookie }));
      await expectRefusal(socket, ['InvalidConnectionRequest', 'UnexpectedBaseCookie'], `baseCookie ${baseCookie} when the room is at ${a.view.cookie}`);
    },
  },
  {
    name: 'connect/client-group-mismatch',
    required: true,
    description: 'a known clientID presented with another clientGroupID is refused',
    async run(ctx) {
      const a = await knownClient(ctx);
      const socket = await a.open(a.connectURL({ clientGroupID: ctx.ids.uuid() }));
      await expectRefusal(socket, ['InvalidConnectionRequest', 'ClientNotFound'], 'a known clientID with another clientGroupID');
    },
  },
];
