import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueID, type TestClient } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ maxFrameBytes: 64 * 1024 });
});
afterAll(() => t.close());

const validPush = JSON.stringify([
  'push',
  {
    timestamp: 1,
    clientGroupID: 'g',
    mutations: [{ id: 1, clientID: 'c', name: 'put', args: { key: 'k', value: 1 }, timestamp: 1 }],
    pushVersion: 1,
    schemaVersion: '1',
    requestID: 'r',
  },
]);

/** Frames that are not valid upstream messages. */
const badFrame = fc.oneof(
  fc.json().filter((s) => !/^\["(ping|push|pull)"/.test(s)),
  fc.string(),
  fc.nat(validPush.length - 1).map((n) => validPush.slice(0, n)),
  fc.constantFrom(
    '["push",{}]',
    '["push",{"timestamp":"1","clientGroupID":"g","mutations":[],"pushVersion":1,"schemaVersion":"1","requestID":"r"}]',
    '["push",{"timestamp":1,"clientGroupID":"g","mutations":[{"id":0,"clientID":"c","name":"put","args":1,"timestamp":1}],"pushVersion":1,"schemaVersion":"1","requestID":"r"}]',
    '["push",{"timestamp":1,"clientGroupID":"g","mutations":[],"pushVersion":2,"schemaVersion":"1","requestID":"r"}]',
    '["pull",{"clientGroupID":"g","cookie":-1,"requestID":"r"}]',
    '["ping",{"extra":1}]',
    '["ping"]',
    '["error","InvalidMessage","x"]',
    '{"push":1}',
    '[]',
    'null',
    '',
  ),
  fc.jsonValue().map((v) => JSON.stringify(['push', v])),
);

async function snapshot(): Promise<unknown> {
  const { json } = await t.admin('GET', '/stats');
  return (json.rooms as { roomID: string }[]).map(({ roomID, version, keys } : Record<string, unknown>) => ({ roomID, version, keys }));
}

describe('fuzz: malformed frames', () => {
  it('answer InvalidMessage, keep the socket open and leave the room unchanged', async () => {
    const roomID = uniqueID('fuzz');
    const victim = t.connect({ roomID });
    const observer = t.connect({ roomID });
    await Promise.all([victim.ready(), observer.ready()]);
    victim.mutate('put', { key: 'stable', value: 'yes' });
    await victim.acked(1);
    const before = await snapshot();
    await fc.assert(
      fc.asyncProperty(fc.array(badFrame, { minLength: 1, maxLength: 5 }), async (frames) => {
        const n = victim.errors.length;
        for (const f of frames) victim.sendRaw(f);
        await victim.until(() => victim.errors.length >= n + frames.length || victim.closed, 'errors');
        expect(victim.closed).toBe(false);
        expect(victim.errors.slice(n).every(([kind]) => kind === 'InvalidMessage')).toBe(true);
      }),
      { numRuns: 60 },
    );
    expect(await snapshot()).toEqual(before);
    victim.sendRaw(JSON.stringify(['ping', {}]));
    await victim.until(() => victim.messages.some((m) => m[0] === 'pong'));
    expect(observer.pokes).toHaveLength(2);
  });

  it('binary frames get InvalidMessage; huge frames and invalid UTF-8 close the socket; the server lives on', async () => {
    const roomID = uniqueID('fuzz');
    const clients: TestClient[] = [];
    const bin = t.connect({ roomID });
    clients.push(bin);
    await bin.ready();
    bin.sendRaw(Buffer.from(validPush), true);
    await bin.until(() => bin.errors.length === 1);
    expect(bin.errors[0]![0]).toBe('InvalidMessage');
    expect(bin.closed).toBe(false);

    const huge = t.connect({ roomID });
    await huge.ready();
    huge.sendRaw('['.repeat(70 * 1024));
    await huge.until(() => huge.closed);
    expect(huge.closeCode).toBe(1009);

    const utf = t.connect({ roomID });
    await utf.ready();
    utf.sendRaw(Buffer.from([0x5b, 0xff, 0xfe, 0x5d]), false);
    await utf.until(() => utf.closed);
    expect(utf.closeCode).toBe(1007);

    const deep = t.connect({ roomID });
    await deep.ready();
    deep.sendRaw(`["push",${'['.repeat(10000)}${']'.repeat(10000)}]`);
    await deep.until(() => deep.errors.length === 1);
    expect(deep.errors[0]![0]).toBe('InvalidMessage');

    const fresh = t.connect({ roomID });
    await fresh.ready();
    expect(fresh.state.size).toBe(0);
  });
});

describe('fuzz: connect requests', () => {
  it('odd request targets get an HTTP answer or an error frame, and the server keeps serving', async () => {
    const { connect } = await import('node:net');
    const port = Number(new URL(t.url).port);
    const target = fc.oneof(
      fc.string({ unit: 'binary-ascii', maxLength: 60 }).map((s) => s.replace(/[\s\0]/g, '')),
      fc.constantFrom('http://[', '//', '/api/sync/v1/connect?%%', '/api/sync/v9/connect', '/api/sync/', '*', '/api/sync/v1/connect?roomID=%ZZ'),
    );
    await fc.assert(
      fc.asyncProperty(target, async (path) => {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => {});
        socket.write(
          `GET ${path || '/'} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: tok\r\n\r\n',
        );
        const answer = await new Promise<string>((resolve) => {
          let text = '';
          socket.on('data', (d) => {
            text += d.toString('latin1');
            if (text.includes('\r\n\r\n')) socket.destroy();
          });
          socket.on('close', () => resolve(text));
        });
        expect(answer).toMatch(/^HTTP\/1\.1 /);
      }),
      { numRuns: 40 },
    );
    const c = t.connect({ roomID: uniqueID('after-fuzz') });
    await c.ready();
  });

  it('random connect parameters are refused with InvalidConnectionRequest or accepted', async () => {
    const { WebSocket } = await import('ws');
    const param = fc.option(fc.string({ maxLength: 12 }), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(fc.record({ clientID: param, clientGroupID: param, roomID: param, baseCookie: param, ts: param, lmid: param, wsid: param }), async (q) => {
        const query = new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => e[1] !== undefined));
        const ws = new WebSocket(`${t.url}/api/sync/v1/connect?${query}`, ['tok']);
        const first = await new Promise<string>((resolve) => {
          ws.on('message', (d) => resolve(d.toString()));
          ws.on('close', () => resolve('closed'));
          ws.on('error', () => resolve('error'));
        });
        ws.terminate();
        const m = JSON.parse(first) as unknown[];
        expect(m[0] === 'connected' || (m[0] === 'error' && m[1] === 'InvalidConnectionRequest')).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});
