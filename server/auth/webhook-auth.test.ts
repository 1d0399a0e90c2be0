import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { uniqueID } from '../test-support/test-client';
import { startTestServer, type TestServer } from '../test-support/test-server';
import { createWebhookAuthHandler } from './webhook-auth';

let t: TestServer | undefined;
let app: Server | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await new Promise((r) => (app ? app.close(r) : r(undefined)));
  app = undefined;
});

describe('webhook auth (an app endpoint on loopback)', () => {
  it('asks the app with the token and room, lets its user in, refuses its 401, caches answers briefly', async () => {
    const calls: unknown[] = [];
    app = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const { token, roomID } = JSON.parse(body) as { token: string; roomID: string };
        calls.push({ method: req.method, token, roomID });
        if (token === 'good') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ userID: 'alice', claims: { plan: 'pro' } }));
        else if (token === 'broken') res.writeHead(500).end();
        else res.writeHead(401).end();
      });
    });
    await new Promise<void>((r) => app!.listen(0, '127.0.0.1', r));
    let nowMs = 0;
    const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/auth`;
    t = await startTestServer({
      authHandler: createWebhookAuthHandler({ url, cacheMs: 1000, clock: { now: () => nowMs } }),
      mutators: {
        whoami: async (tx, args: { key: string }) => {
          await tx.put(args.key, (tx as typeof tx & { auth: { userID: string; claims: object } }).auth as never);
        },
      },
    });
    const roomID = uniqueID('room');
    const c = t.connect({ roomID, token: 'good' });
    await c.ready();
    c.mutate('whoami', { key: 'me' });
    await c.acked(1);
    expect(c.state.get('me')).toEqual({ userID: 'alice', claims: { plan: 'pro' } });
    await t.connect({ roomID, token: 'good' }).ready();
    expect(calls).toEqual([{ method: 'POST', token: 'good', roomID }]);
    nowMs += 1000;
    await t.connect({ roomID, token: 'good' }).ready();
    expect(calls).toHaveLength(2);
    for (const token of ['bad', 'broken']) {
      const refused = t.connect({ roomID, token });
      await refused.until(() => refused.closed);
      expect(refused.errors[0]?.[0]).toBe('Unauthorized');
    }
  });
});
