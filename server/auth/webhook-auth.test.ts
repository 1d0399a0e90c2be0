import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { uniqueID } from '../test-support/test-client';
import { startTestServer, type TestServer } from '../test-support/test-server';
import { TokenRefusedError } from './jwt-auth';
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

  /**
   * An app endpoint on loopback that holds each call until `answer()` (or
   * answers at once when `held` is false): tokens starting with `good` are
   * their own user, the others are refused (401).
   */
  async function heldApp(held = true) {
    const calls: string[] = [];
    const waiting: (() => void)[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    app = createServer((req, res: ServerResponse) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const { token } = JSON.parse(body) as { token: string };
        calls.push(token);
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        const reply = () => {
          inFlight--;
          if (token.startsWith('good')) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ userID: token }));
          else res.writeHead(401).end();
        };
        if (held) waiting.push(reply);
        else reply();
      });
    });
    await new Promise<void>((r) => app!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/auth`;
    return {
      url,
      calls,
      get mostInFlight() {
        return mostInFlight;
      },
      /** Waits until `n` calls are held, then answers them. */
      async answer(n: number) {
        for (let i = 0; waiting.length < n && i < 500; i++) await new Promise((r) => setTimeout(r, 10));
        expect(waiting.length).toBe(n);
        for (const reply of waiting.splice(0)) reply();
      },
    };
  }

  /** What each call settled with: a user id, null (refused by the app) or 'busy'. */
  const outcome = (p: Promise<unknown>) =>
    p.then(
      (r) => (r === null ? null : (r as { userID: string }).userID),
      (e: unknown) => (e instanceof TokenRefusedError && /busy/.test(e.message) ? 'busy' : String(e)),
    );

  it('calls the app at most maxConcurrent at once, queues maxQueued, refuses the rest at once (uncached)', async () => {
    const wh = await heldApp();
    const auth = createWebhookAuthHandler({ url: wh.url, maxConcurrent: 2, maxQueued: 3 });
    const tokens = Array.from({ length: 8 }, (_, i) => `good-${i}`);
    const results = tokens.map((token) => outcome(Promise.resolve(auth(token, 'room'))));
    // The last three found two calls in flight and three connects waiting.
    expect(await Promise.all(results.slice(5))).toEqual(['busy', 'busy', 'busy']);
    await wh.answer(2);
    await wh.answer(2);
    await wh.answer(1);
    expect(await Promise.all(results.slice(0, 5))).toEqual(tokens.slice(0, 5));
    expect(wh.calls).toEqual(tokens.slice(0, 5));
    expect(wh.mostInFlight).toBe(2);
    // A connect refused as busy asks again (nothing was cached).
    const again = outcome(Promise.resolve(auth('good-7', 'room')));
    await wh.answer(1);
    expect(await again).toBe('good-7');
  });

  it('refuses a connect that waited timeoutMs for a call', async () => {
    const wh = await heldApp();
    // The queue's wait on a timer the test fires (the held call's own fetch timeout is real, and not reached).
    const waits: (() => void)[] = [];
    const timers = { setTimeout: (cb: () => void, ms: number) => (expect(ms).toBe(5000), waits.push(cb)), clearTimeout: () => {} };
    const auth = createWebhookAuthHandler({ url: wh.url, maxConcurrent: 1, timers });
    const first = outcome(Promise.resolve(auth('good-1', 'room')));
    const second = outcome(Promise.resolve(auth('good-2', 'room')));
    await vi.waitFor(() => expect(wh.calls).toEqual(['good-1']));
    expect(waits).toHaveLength(1);
    waits[0]!();
    expect(await second).toBe('busy');
    await wh.answer(1);
    expect(await first).toBe('good-1');
    expect(wh.calls).toEqual(['good-1']);
  });

  it('connects with the same token and room share one call', async () => {
    const wh = await heldApp();
    const auth = createWebhookAuthHandler({ url: wh.url, maxConcurrent: 1 });
    const same = Array.from({ length: 20 }, () => outcome(Promise.resolve(auth('good-a', 'room'))));
    const other = outcome(Promise.resolve(auth('good-a', 'other-room')));
    await wh.answer(1);
    await wh.answer(1);
    expect(await Promise.all(same)).toEqual(Array(20).fill('good-a'));
    expect(await other).toBe('good-a');
    expect(wh.calls).toEqual(['good-a', 'good-a']);
  });

  it('keeps at most maxCached answers, oldest dropped; bad tokens do not push out good answers', async () => {
    const wh = await heldApp(false);
    const auth = createWebhookAuthHandler({ url: wh.url, maxCached: 3 });
    for (const token of ['good-1', 'good-2', 'good-3', 'good-4']) expect(await auth(token, 'room')).toEqual({ userID: token, claims: {} });
    for (let i = 0; i < 50; i++) expect(await auth(`bad-${i}`, 'room')).toBeNull();
    wh.calls.length = 0;
    for (const token of ['good-2', 'good-3', 'good-4', 'bad-47', 'bad-48', 'bad-49']) await auth(token, 'room');
    expect(wh.calls).toEqual([]);
    await auth('good-1', 'room');
    await auth('bad-46', 'room');
    expect(wh.calls).toEqual(['good-1', 'bad-46']);
  });

  it('through the server: a flood of connects with new tokens reaches the app maxConcurrent at a time', async () => {
    const wh = await heldApp();
    t = await startTestServer({ authHandler: createWebhookAuthHandler({ url: wh.url, maxConcurrent: 2, maxQueued: 2 }) });
    const roomID = uniqueID('room');
    const clients = Array.from({ length: 10 }, (_, i) => t!.connect({ roomID, token: `good-${i}` }));
    // Six are refused while four wait on the app.
    for (let i = 0; i < 500 && wh.calls.length + clients.filter((c) => c.closed).length < 8; i++) await new Promise((r) => setTimeout(r, 10));
    await wh.answer(2);
    await wh.answer(2);
    const ready = await Promise.all(clients.map((c) => c.until(() => c.closed || c.pokes.length > 0).then(() => !c.closed)));
    expect(ready.filter(Boolean)).toHaveLength(4);
    for (const c of clients.filter((x) => x.closed)) expect(c.errors[0]?.[0]).toBe('Unauthorized');
    expect(wh.calls).toHaveLength(4);
    expect(wh.mostInFlight).toBe(2);
  });
});
