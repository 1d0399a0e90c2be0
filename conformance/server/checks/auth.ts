import { encodeAuthSubprotocol } from '../../../src/protocol';
import { CheckSkipped } from '../../shared/check-failure';
import type { Check } from '../check';
import { expectRefusal } from '../expect-error';

export const authChecks: readonly Check[] = [
  {
    name: 'auth/invalid-token',
    required: true,
    description: 'a connect with a token the server does not accept is refused with Unauthorized',
    async run(ctx) {
      const user = ctx.config.users.find((u) => u.invalidToken !== undefined);
      if (user?.invalidToken === undefined) throw new CheckSkipped('the config gives no invalidToken for any user');
      const a = ctx.client(await ctx.newRoom());
      const url = a.connectURL();
      const socket = await ctx.openRaw(url, encodeAuthSubprotocol(user.invalidToken), a.label);
      await expectRefusal(socket, ['Unauthorized'], 'an invalid token');
    },
  },
];
