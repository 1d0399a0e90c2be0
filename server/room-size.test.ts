/**
 * The room size limit bounds what a catch-up poke carries: a room counts what
 * each live entry adds to one (its put operation, its key as JSON escapes it,
 * its JSON text), so a room of many tiny entries, or of keys made of control
 * characters (6 bytes each in JSON), still catches a new client up in one
 * poke of about the limit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encodeDownstream } from '../src/protocol';
import { entryBytes } from './room-data';
import { uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const LIMIT = 4_000;

describe('room size', () => {
  it('counts an entry as what its put operation adds to a catch-up', () => {
    for (const [key, json] of [
      ['k', '1'],
      ['\u0001\u0002', '"x"'],
      ['quote"and\\backslash', '{"a":[1,2]}'],
      ['clé/ünïcode/🙂', '"valüe"'],
    ] as const) {
      expect(entryBytes(key, json)).toBe(Buffer.byteLength(`{"op":"put","key":${JSON.stringify(key)},"value":${json}},`));
    }
    expect(entryBytes('gone', undefined)).toBe(0);
  });

  it(`a room of tiny entries with escaped keys, filled to its limit of ${LIMIT} bytes, catches a new client up in one poke of about that size`, async () => {
    t = await startTestServer({ maxRoomBytes: LIMIT });
    const roomID = uniqueID('room');
    const writer = t.connect({ roomID });
    await writer.ready();
    let id = 0;
    for (let i = 0; i < 400; i++) id = writer.mutate('put', { key: `\u0001\u0002\u0003${i}`, value: i });
    await writer.acked(id);
    // Counted as their raw bytes (4-6 per entry), all 400 fitted; their catch-up was 4x the limit.
    expect(writer.state.size).toBeLessThan(400);
    expect(writer.state.size).toBeGreaterThan(50);
    const late = t.connect({ roomID });
    await late.ready();
    const catchUp = late.messages.find((m) => m[0] === 'poke')!;
    expect(encodeDownstream(catchUp).length).toBeLessThan(LIMIT + 300);
    expect(late.state.size).toBe(writer.state.size);
  });
});
