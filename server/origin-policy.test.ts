import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { buildConnectURL } from '../src/protocol';
import { originAllowed } from './origin-policy';
import { newWsid, uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

const strict = { allowed: [], loopback: false };
const dev = { allowed: [], loopback: true, guardRebinding: true };
/** Loopback pages allowed, tokens real (a server not started with --production, or the library's default, with real auth). */
const realAuth = { allowed: [], loopback: true };

describe('originAllowed', () => {
  it('allows non-browser clients (no Origin) and the page\'s own origin', () => {
    expect(originAllowed(undefined, 'rooms.example.com', strict)).toBe(true);
    expect(originAllowed('https://rooms.example.com', 'rooms.example.com', strict)).toBe(true);
    expect(originAllowed('https://ROOMS.example.com', 'rooms.example.com', strict)).toBe(true);
  });

  it('refuses other sites, malformed and opaque origins', () => {
    expect(originAllowed('https://evil.example', 'rooms.example.com', strict)).toBe(false);
    expect(originAllowed('https://evil.example', '127.0.0.1:8080', dev)).toBe(false);
    expect(originAllowed('null', 'rooms.example.com', dev)).toBe(false);
    expect(originAllowed('not a url', 'rooms.example.com', dev)).toBe(false);
    expect(originAllowed('http://localhost:5173', 'rooms.example.com', strict)).toBe(false);
  });

  it('allows listed origins, * and (in development) loopback pages', () => {
    expect(originAllowed('https://app.example.com', 'api.example.com', { allowed: ['https://app.example.com/'], loopback: false })).toBe(true);
    expect(originAllowed('https://other.example', 'x', { allowed: ['*'], loopback: false })).toBe(true);
    expect(originAllowed('http://localhost:5173', '127.0.0.1:8080', dev)).toBe(true);
    expect(originAllowed('http://[::1]:3000', '127.0.0.1:8080', dev)).toBe(true);
  });

  it('under dev auth (a token is any user id), allows the page\'s own origin only under an IP address or localhost (DNS rebinding)', () => {
    // A page of evil.example whose name now resolves to this server sends Host and Origin of evil.example.
    expect(originAllowed('http://evil.example:8080', 'evil.example:8080', dev)).toBe(false);
    expect(originAllowed('http://EVIL.example:8080', 'evil.example:8080', dev)).toBe(false);
    expect(originAllowed('https://rooms.example.com', 'rooms.example.com', dev)).toBe(false);
    // The server's own page under an address or a loopback name cannot be another site's.
    expect(originAllowed('http://127.0.0.1:8080', '127.0.0.1:8080', dev)).toBe(true);
    expect(originAllowed('http://localhost:8080', 'localhost:8080', dev)).toBe(true);
    expect(originAllowed('http://app.localhost:8080', 'app.localhost:8080', dev)).toBe(true);
    expect(originAllowed('http://192.168.1.20:8080', '192.168.1.20:8080', dev)).toBe(true);
    expect(originAllowed('http://[fe80::1]:8080', '[fe80::1]:8080', dev)).toBe(true);
    expect(originAllowed('http://10.0.0.5:8080', '127.0.0.1:8080', dev)).toBe(false);
    // A name the developer lists is allowed; production keeps the page's own origin under any name.
    expect(originAllowed('http://mybox.lan:8080', 'mybox.lan:8080', { allowed: ['http://mybox.lan:8080'], loopback: true, guardRebinding: true })).toBe(true);
    expect(originAllowed('http://evil.example:8080', 'evil.example:8080', strict)).toBe(true);
    // With real tokens the page's own origin stands under any name, loopback pages allowed or not (a review finding: 403 for an app's own page).
    expect(originAllowed('https://app.example.com', 'app.example.com', realAuth)).toBe(true);
  });
});

describe('the origin check on a development server (a real upgrade)', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  /** The first frame, or the HTTP status, of a connect sent with these Host and Origin headers. */
  async function connectAs(host: string, origin: string): Promise<string> {
    const url = buildConnectURL(t!.url, { clientID: 'c1', clientGroupID: uniqueID('g'), roomID: uniqueID('room'), baseCookie: null, ts: 1, lmid: 0, wsid: newWsid() });
    const ws = new WebSocket(url, ['victim'], { headers: { host, origin } });
    const answer = await new Promise<string>((resolve) => {
      ws.on('message', (d) => resolve(d.toString().slice(0, 12)));
      ws.on('unexpected-response', (_req, res) => resolve(`HTTP ${res.statusCode}`));
      ws.on('error', (e) => resolve(e.message));
    });
    ws.terminate();
    return answer;
  }

  it('refuses a page rebound to it under another site\'s name, serves its own page under its address', async () => {
    t = await startTestServer();
    const port = new URL(t.url).port;
    expect(await connectAs(`evil.example:${port}`, `http://evil.example:${port}`)).toBe('HTTP 403');
    expect(await connectAs(`127.0.0.1:${port}`, `http://127.0.0.1:${port}`)).toBe('["connected"');
    expect(await connectAs(`localhost:${port}`, `http://localhost:${port}`)).toBe('["connected"');
  });

  it("with real auth, serves the app's own page under its real name, loopback pages allowed as by default", async () => {
    t = await startTestServer({ authHandler: (token) => ({ userID: token }) });
    const port = new URL(t.url).port;
    expect(await connectAs(`app.example.com:${port}`, `http://app.example.com:${port}`)).toBe('["connected"');
  });

  it('with real auth and anonymous users allowed, still serves the app page under its real name (a rebound page could only be anonymous, as any script can)', async () => {
    t = await startTestServer({ authHandler: (token) => ({ userID: token }), allowAnonymous: true, allowLoopbackOrigins: false });
    const port = new URL(t.url).port;
    expect(await connectAs(`app.example.com:${port}`, `http://app.example.com:${port}`)).toBe('["connected"');
  });
});
