import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeUpstream } from '../src/protocol';
import { uniqueID, type TestClient } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

const FRAMES_PER_RUN = 10_000;
const CHUNK = 200;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ maxFrameBytes: 64 * 1024 });
});
afterAll(() => t.close());

const VALID = [
  ['push', { timestamp: 1, clientGroupID: 'g', mutations: [{ id: 1, clientID: 'c', name: 'put', args: { key: 'k', value: [1, 'two', { three: 3 }] }, timestamp: 1 }], pushVersion: 1, schemaVersion: '1', requestID: 'r' }],
  ['push', { timestamp: 1, clientGroupID: 'g', mutations: [{ id: 1, clientID: 'c', name: 'increment', args: { key: 'n', delta: 1 }, timestamp: 1 }, { id: 2, clientID: 'c', name: 'del', args: { key: 'k' }, timestamp: 2 }], pushVersion: 1, schemaVersion: '1', requestID: 'r2' }],
  ['pull', { clientGroupID: 'g', cookie: 3, requestID: 'p' }],
  ['ping', {}],
] as const;
const TOKENS = ['"', '{', '}', '[', ']', ',', ':', 'null', 'true', '-0', '1e999', '"\\ud800"', '"\\u0000"', '\\', '""', '{}', '[]', '9007199254740993', '"__proto__"'];

/** A valid frame with one of its values (at a random path) replaced by random JSON. */
const valueMutation = fc.tuple(fc.constantFrom(...VALID), fc.nat(), fc.jsonValue({ maxDepth: 3 })).map(([frame, pick, replacement]) => {
  const copy = JSON.parse(JSON.stringify(frame)) as unknown;
  const paths: (string | number)[][] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    paths.push(path);
    if (typeof v === 'object' && v !== null) for (const [k, c] of Object.entries(v)) walk(c, [...path, Array.isArray(v) ? Number(k) : k]);
  };
  walk(copy, []);
  const path = paths[pick % paths.length]!;
  if (path.length === 0) return JSON.stringify(replacement);
  let parent = copy as Record<string | number, unknown>;
  for (const p of path.slice(0, -1)) parent = parent[p] as Record<string | number, unknown>;
  parent[path[path.length - 1]!] = replacement;
  return JSON.stringify(copy);
});

/** A valid frame's text with bytes replaced, deleted, inserted or repeated. */
const textMutation = fc
  .tuple(fc.constantFrom(...VALID.map((f) => JSON.stringify(f))), fc.array(fc.tuple(fc.nat(4), fc.nat(), fc.nat(40), fc.constantFrom(...TOKENS), fc.string({ maxLength: 3 })), { minLength: 1, maxLength: 4 }))
  .map(([text, edits]) => {
    let s = text;
    for (const [op, at, len, token, chars] of edits) {
      const i = at % (s.length + 1);
      if (op === 0) s = s.slice(0, i) + chars + s.slice(i + 1);
      else if (op === 1) s = s.slice(0, i) + s.slice(i + len);
      else if (op === 2) s = s.slice(0, i) + token + s.slice(i);
      else if (op === 3) s = s.slice(0, i) + s.slice(i, i + len).repeat(3) + s.slice(i);
      else s = s.slice(0, i) + chars + token + s.slice(i);
    }
    return s;
  });

const randomFrame = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.string({ maxLength: 40 }),
  fc.tuple(fc.constantFrom('push', 'pull', 'ping', 'poke'), fc.jsonValue({ maxDepth: 3 })).map((f) => JSON.stringify(f)),
);
const frame = fc.oneof({ arbitrary: textMutation, weight: 4 }, { arbitrary: valueMutation, weight: 4 }, { arbitrary: randomFrame, weight: 2 });

function rejected(text: string): boolean {
  try {
    decodeUpstream(text);
    return false;
  } catch {
    return true;
  }
}

async function roomState(roomID: string): Promise<unknown> {
  const { json } = await t.admin('GET', '/stats');
  const room = (json.rooms as { roomID: string; version: number; keys: number; bytes: number }[]).find((r) => r.roomID === roomID);
  return room === undefined ? undefined : { version: room.version, keys: room.keys, bytes: room.bytes };
}

describe(`fuzz: ${FRAMES_PER_RUN} random and mutated frames per run`, () => {
  it('every rejected frame gets InvalidMessage, leaves the socket open and the room unchanged; accepted ones are served; the server lives on', async () => {
    const seed = Date.now() ^ (Math.random() * 2 ** 31);
    const frames = fc.sample(frame, { numRuns: FRAMES_PER_RUN, seed });
    const roomID = uniqueID('fuzz');
    const victim = t.connect({ roomID });
    await victim.ready();
    victim.mutate('put', { key: 'stable', value: 'yes' });
    await victim.acked(1);
    const before = await roomState(roomID);
    // Frames the protocol accepts go to another room, on a socket that may be closed (e.g. InvalidPush) and reopened.
    const chaosRoom = uniqueID('fuzz-accepted');
    let chaos: TestClient = t.connect({ roomID: chaosRoom });
    await chaos.ready();
    let accepted = 0;
    for (let start = 0; start < frames.length; start += CHUNK) {
      const chunk = frames.slice(start, start + CHUNK);
      const bad = chunk.filter(rejected);
      const n = victim.errors.length;
      for (const f of bad) victim.sendRaw(f);
      for (const f of chunk.filter((f) => !rejected(f))) {
        if (chaos.closed) {
          chaos = t.connect({ roomID: chaosRoom });
          await chaos.ready();
        }
        chaos.sendRaw(f);
        accepted++;
      }
      await victim.until(() => victim.errors.length >= n + bad.length || victim.closed, `errors (seed ${seed})`, 20_000);
      expect(victim.closed, `seed ${seed}`).toBe(false);
      expect(victim.errors.slice(n).every(([kind]) => kind === 'InvalidMessage'), `seed ${seed}`).toBe(true);
      expect(await roomState(roomID), `seed ${seed}`).toEqual(before);
    }
    expect(accepted).toBeGreaterThan(0);
    expect(victim.outOfOrder).toEqual([]);
    victim.sendRaw(JSON.stringify(['ping', {}]));
    await victim.until(() => victim.messages.some((m) => m[0] === 'pong'));
    const fresh = t.connect({ roomID });
    await fresh.ready();
    expect(Object.fromEntries(fresh.state)).toEqual({ stable: 'yes' });
  }, 120_000);
});
