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
