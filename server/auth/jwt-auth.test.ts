import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { uniqueID } from '../test-support/test-client';
import { startTestServer, type TestServer } from '../test-support/test-server';
import { createJwtAuthHandler } from './jwt-auth';

const SECRET = 'a-shared-secret-of-enough-length-for-hs256';
const NOW_S = 1_800_000_000;
const now = () => NOW_S * 1000;
const secretKey = new TextEncoder().encode(SECRET);

function hs256(claims: Record<string, unknown>, expiresAt = NOW_S + 60) {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(NOW_S).setExpirationTime(expiresAt).sign(secretKey);
}

let t: TestServer | undefined;
let jwksServer: Server | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await new Promise((r) => (jwksServer ? jwksServer.close(r) : r(undefined)));
  jwksServer = undefined;
});

async function refusal(token: string, roomID = uniqueID('room')): Promise<string | undefined> {
  const c = t!.connect({ roomID, token });
  await c.until(() => c.closed || c.messages.length > 0);
  await c.until(() => c.closed);
  return c.errors[0]?.[0];
}

describe('JWT auth (real signed tokens)', () => {
  it('HS256: lets a valid token in as its sub; refuses expired, wrongly signed, wrong audience and wrong room tokens', async () => {
    t = await startTestServer({ authHandler: createJwtAuthHandler({ secret: SECRET, audience: 'roomsync', roomClaim: 'rooms', now }) });
    const roomID = uniqueID('room');
    const good = await hs256({ sub: 'alice', aud: 'roomsync', rooms: [roomID], role: 'editor' });
    const c = t.connect({ roomID, token: good });
    await c.ready();
    expect(await refusal(await hs256({ sub: 'alice', aud: 'roomsync', rooms: ['*'] }, NOW_S - 60))).toBe('Unauthorized');
    expect(await refusal(await hs256({ sub: 'alice', aud: 'other-app', rooms: ['*'] }))).toBe('Unauthorized');
    expect(await refusal(await hs256({ sub: 'alice', aud: 'roomsync', rooms: ['another-room'] }))).toBe('Unauthorized');
    expect(await refusal(await hs256({ aud: 'roomsync', rooms: ['*'] }))).toBe('Unauthorized');
    const forged = await new SignJWT({ sub: 'alice', aud: 'roomsync', rooms: ['*'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(NOW_S + 60)
      .sign(new TextEncoder().encode('not-the-secret-but-just-as-long-as-it'));
    expect(await refusal(forged)).toBe('Unauthorized');
    expect(await refusal('not.a.jwt')).toBe('Unauthorized');
  });

  it('ES256 with a PEM public key; an HS256 token signed with that public key is refused (no algorithm confusion)', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const pem = await exportSPKI(publicKey);
    t = await startTestServer({ authHandler: createJwtAuthHandler({ publicKey: pem, now }) });
    const token = await new SignJWT({ sub: 'bob' }).setProtectedHeader({ alg: 'ES256' }).setExpirationTime(NOW_S + 60).sign(privateKey);
    await t.connect({ roomID: uniqueID('room'), token }).ready();
    const confused = await new SignJWT({ sub: 'bob' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(NOW_S + 60).sign(new TextEncoder().encode(pem));
    expect(await refusal(confused)).toBe('Unauthorized');
  });

  it('ES256 keys from a JWKS served on loopback, fetched once and cached', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
    let fetches = 0;
    jwksServer = createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => jwksServer!.listen(0, '127.0.0.1', r));
    const jwksURL = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
    t = await startTestServer({ authHandler: createJwtAuthHandler({ jwksURL, issuer: 'https://auth.example', now }) });
    const sign = (sub: string, iss = 'https://auth.example') =>
      new SignJWT({ sub }).setProtectedHeader({ alg: 'ES256', kid: 'key-1' }).setIssuer(iss).setExpirationTime(NOW_S + 60).sign(privateKey);
    await t.connect({ roomID: uniqueID('room'), token: await sign('carol') }).ready();
    await t.connect({ roomID: uniqueID('room'), token: await sign('dave') }).ready();
    expect(fetches).toBe(1);
    expect(await refusal(await sign('eve', 'https://evil.example'))).toBe('Unauthorized');
  });

  it('passes the claims on: mutators see tx.auth (user id and claims)', async () => {
    t = await startTestServer({
      authHandler: createJwtAuthHandler({ secret: SECRET, now }),
      mutators: {
        whoami: async (tx, args: { key: string }) => {
          const auth = (tx as typeof tx & { auth: { userID: string; claims: Record<string, unknown> } }).auth;
          await tx.put(args.key, { userID: auth.userID, role: auth.claims.role as string, clientID: tx.clientID });
        },
      },
    });
    const c = t.connect({ roomID: uniqueID('room'), token: await hs256({ sub: 'alice', role: 'editor' }) });
    await c.ready();
    c.mutate('whoami', { key: 'me' });
    await c.acked(1);
    expect(c.state.get('me')).toEqual({ userID: 'alice', role: 'editor', clientID: c.clientID });
  });
});
