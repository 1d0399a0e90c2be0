import type { Check } from '../check';

export const connectChecks: readonly Check[] = [
  {
    name: 'connect/connected',
    required: true,
    description: 'a valid connect request is answered with connected echoing the wsid',
    async run(ctx) {
      await ctx.client(await ctx.newRoom()).connect();
    },
  },
  {
    name: 'connect/ping-pong',
    required: true,
    description: 'ping is answered with pong',
    async run(ctx) {
      const client = ctx.client(await ctx.newRoom());
      await client.connect();
      await client.ping();
      await client.ping();
    },
  },
];
