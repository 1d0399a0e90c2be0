import { PUSH_VERSION } from '../../../src/protocol';
import { CheckFailure } from '../../shared/check-failure';
import type { Check } from '../check';
import { expectErrorFrame } from '../expect-error';

interface BadFrame {
  readonly name: string;
  readonly what: string;
  readonly text: (clientGroupID: string) => string;
}

const BAD_FRAMES: readonly BadFrame[] = [
  { name: 'not-json', what: 'a text frame that is not JSON', text: () => 'this is {not json' },
  { name: 'unknown-name', what: 'an unknown message name', text: () => JSON.stringify(['shout', { loud: true }]) },
  { name: 'not-an-array', what: 'a JSON object instead of [name, body]', text: () => JSON.stringify({ ping: {} }) },
  {
    name: 'malformed-push',
    what: 'a push whose body does not match the schema',
    text: (clientGroupID) =>
      JSON.stringify(['push', { clientGroupID, mutations: 'none', pushVersion: PUSH_VERSION, schemaVersion: '1', requestID: 'r', timestamp: 'soon' }]),
  },
];

export const invalidMessageChecks: readonly Check[] = BAD_FRAMES.map((bad) => ({
  name: `invalid-message/${bad.name}`,
  required: true,
  description: `${bad.what} is answered with InvalidMessage and the socket stays open`,
  async run(ctx) {
    const a = ctx.client(await ctx.newRoom());
    const socket = await a.connect();
    socket.sendText(bad.text(a.clientGroupID));
    await expectErrorFrame(socket, ['InvalidMessage'], bad.what);
    try {
      await a.ping();
    } catch (error) {
      if (error instanceof CheckFailure) {
        throw new CheckFailure(`after InvalidMessage the socket no longer works: ${error.message}`, 'the socket stays open and a ping still gets a pong', error.actual);
      }
      throw error;
    }
  },
}));
