import { PROTOCOL_VERSION } from '../../../src/protocol';
import type { Check } from '../check';
import type { CheckContext } from '../check-context';
import { expectRefusal } from '../expect-error';
import type { SyncClient } from '../sync-client';

const CONNECT_PARAMS = ['clientID', 'clientGroupID', 'roomID', 'baseCookie', 'ts', 'lmid', 'wsid'] as const;
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

const missingParamChecks: Check[] = CONNECT_PARAMS.map((param) => ({
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
