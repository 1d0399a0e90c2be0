import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import type { AuthHandler } from './auth/auth';
import { uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function refused(client: ReturnType<TestServer['connect']>): Promise<[string, string]> {
  await client.until(() => client.closed, 'close');
  expect(client.messages.map((m) => m[0])).toEqual(['error']);
  return client.errors[0]!;
}

describe('connect errors: 101, one error frame, close', () => {
  it('VersionNotSupported for another protocol version', async () => {
    t = await startTestServer();
    const c = t.connect({ roomID: 'r', path: '/api/sync/v2/connect' });
    expect((await refused(c))[0]).toBe('VersionNotSupported');
  });

  it('InvalidConnectionRequest for missing or invalid parameters', async () => {
    t = await startTestServer();
    const ws = new WebSocket(`${t.url}/api/sync/v1/connect?clientID=c&roomID=r`, ['tok']);
    const frames: string[] = [];
    ws.on('message', (d) => frames.push(d.toString()));
    const code = await new Promise<number>((resolve) => ws.on('close', resolve));
    expect(ws.protocol).toBe('tok');
    expect(frames).toHaveLength(1);
    expect(JSON.parse(frames[0]!).slice(0, 2)).toEqual(['error', 'InvalidConnectionRequest']);
    expect(code).toBe(1008);
  });

  it('InvalidConnectionRequest for an lmid above the server record', async () => {
    t = await startTestServer();
    const c = t.connect({ roomID: uniqueID('room'), lmid: 3 });
    const [kind, message] = await refused(c);
    expect(kind).toBe('InvalidConnectionRequest');
    expect(message).toMatch(/^Unexpected lmid 3/);
  });

  it('InvalidConnectionRequest for a baseCookie above the room version', async () => {
    t = await startTestServer();
    const c = t.connect({ roomID: uniqueID('room'), baseCookie: 7 });
    const [kind, message] = await refused(c);
    expect(kind).toBe('InvalidConnectionRequest');
    expect(message).toMatch(/^Unexpected baseCookie 7/);
  });

  it('InvalidConnectionRequest for a known client in another group', async () => {
    t = await startTestServer();
    const roomID = uniqueID('room');
    const a = t.connect({ roomID });
    await a.ready();
    const b = t.connect({ roomID, clientID: a.clientID, clientGroupID: 'other-group' });
    const [kind, message] = await refused(b);
    expect(kind).toBe('InvalidConnectionRequest');
    expect(message).toContain(`belongs to client group ${a.clientGroupID}`);
  });

  it('RoomNotFound (message = roomID) when rooms must be created first', async () => {
    t = await startTestServer({ requireRooms: true });
    const c = t.connect({ roomID: 'missing-room' });
    expect(await refused(c)).toEqual(['RoomNotFound', 'missing-room']);
    expect((await t.admin('POST', '/rooms', { roomID: 'made' })).status).toBe(201);
    const ok = t.connect({ roomID: 'made' });
    await ok.ready();
  });

  it('RoomClosed for a closed room', async () => {
    t = await startTestServer();
    await t.admin('POST', '/rooms', { roomID: 'shut' });
    await t.admin('POST', '/rooms/shut/close');
    expect((await refused(t.connect({ roomID: 'shut' })))[0]).toBe('RoomClosed');
    await t.admin('POST', '/rooms/shut/open');
    await t.connect({ roomID: 'shut' }).ready();
  });

  it('Unauthorized when the auth handler rejects the token; the handler sees token and room', async () => {
    const seen: [string | undefined, string][] = [];
    const authHandler: AuthHandler = async (token, roomID) => {
      seen.push([token, roomID]);
      return token === 'good token/ü' ? { userID: 'u1' } : null;
    };
    t = await startTestServer({ authHandler });
    expect((await refused(t.connect({ roomID: 'r', token: 'bad' })))[0]).toBe('Unauthorized');
    await t.connect({ roomID: 'r', token: 'good token/ü' }).ready();
    expect(seen).toEqual([
      ['bad', 'r'],
      ['good token/ü', 'r'],
    ]);
  });

  it('refuses at the HTTP level (401) a request with no subprotocol when anonymous access is refused', async () => {
    t = await startTestServer({ authHandler: (token) => (token ? { userID: token } : null) });
    const ws = new WebSocket(`${t.url}/api/sync/v1/connect?roomID=r`);
    const status = await new Promise<number | undefined>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.on('error', () => resolve(undefined));
    });
    expect(status).toBe(401);
  });

  it('refuses a missing token (401) and an undecodable one (Unauthorized), even with the dev auth handler', async () => {
    t = await startTestServer();
    const missing = new WebSocket(`${t.url}/api/sync/v1/connect?roomID=r`);
    expect(await new Promise((resolve) => missing.on('unexpected-response', (_req, res) => resolve(res.statusCode)))).toBe(401);
    const url = t.connect({ roomID: 'unused' }).ws.url;
    const undecodable = new WebSocket(url, ['%']);
    const frames: string[] = [];
    undecodable.on('message', (d) => frames.push(d.toString()));
    await new Promise((resolve) => undecodable.on('close', resolve));
    expect(frames).toEqual([JSON.stringify(['error', 'Unauthorized', 'Unauthorized: no auth token (or one that is empty or cannot be decoded)'])]);
  });

  it('lets a client without a token (or an undecodable one) in as anonymous only when allowed', async () => {
    t = await startTestServer({ allowAnonymous: true });
    const c = t.connect({ roomID: uniqueID('room'), token: '' });
    await c.ready();
    expect(c.ws.protocol).toBe('');
    const url = t.connect({ roomID: 'unused' }).ws.url;
    // Its own client and group: the first connect's group belongs to the token's user.
    const odd = new WebSocket(url.replace(/clientID=[^&]+/, 'clientID=odd').replace(/clientGroupID=[^&]+/, 'clientGroupID=odd-group'), ['%']);
    const frames: string[] = [];
    odd.on('message', (d) => frames.push(d.toString()));
    await new Promise((resolve) => odd.on('open', resolve));
    await new Promise((resolve) => setTimeout(resolve, 0));
    await vi.waitFor(() => expect(frames[0]).toMatch(/^\["connected"/));
    odd.close();
  });

  it('refuses a browser page of another site (Origin) with 403, and allows its own origin and listed ones', async () => {
    t = await startTestServer({ allowedOrigins: ['https://app.example.com'], allowLoopbackOrigins: false });
    const url = t.connect({ roomID: 'unused' }).ws.url;
    const status = (origin: string) =>
      new Promise<number | 'open'>((resolve) => {
        const ws = new WebSocket(url.replace(/clientID=[^&]+/, `clientID=${encodeURIComponent(origin)}`), ['user'], { origin });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
        ws.on('open', () => {
          ws.close();
          resolve('open');
        });
      });
    expect(await status('https://evil.example')).toBe(403);
    expect(await status('http://localhost:5173')).toBe(403);
    expect(await status('https://app.example.com')).toBe('open');
    expect(await status(`http://127.0.0.1:${t.port}`)).toBe('open');
  });

  it('a handler that throws refuses the connection instead of crashing', async () => {
    t = await startTestServer({
      authHandler: () => {
        throw new Error('auth backend down');
      },
    });
    expect((await refused(t.connect({ roomID: 'r', token: 'x' })))[0]).toBe('Unauthorized');
  });
});
