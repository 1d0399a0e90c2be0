import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MAX_JSON_VALUE_DEPTH } from '../protocol/constants';
import { SqliteStorage } from './storage/sqlite-storage';
import { uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

const dir = mkdtempSync(join(tmpdir(), 'roomsync-values-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function nested(depth: number): unknown {
  let v: unknown = 0;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

describe('stored values', () => {
  it('round-trips "__proto__" and "constructor" keys exactly, through SQLite and a restart', async () => {
    const path = join(dir, 'proto.sqlite');
    const value = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":1},"a":[{"__proto__":null}]}');
    t = await startTestServer({ storage: new SqliteStorage({ path }) });
    const roomID = uniqueID('room');
    const c = t.connect({ roomID });
    await c.ready();
    c.mutate('put', { key: 'k', value });
    await c.acked(1);
    const seen = t.connect({ roomID });
    await seen.ready();
    expect(JSON.stringify(seen.state.get('k'))).toBe(JSON.stringify(value));
    await t.close();
    t = await startTestServer({ storage: new SqliteStorage({ path }) });
    const after = t.connect({ roomID });
    await after.ready();
    expect(JSON.stringify(after.state.get('k'))).toBe(JSON.stringify(value));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a key with a lone surrogate (never stored mangled, never collapsing two keys into one)', async () => {
    t = await startTestServer({
      mutators: {
        async putBuilt(tx, args: { code: number }) {
          await tx.put(`k${String.fromCharCode(args.code)}`, args.code);
        },
      },
    });
    const roomID = uniqueID('room');
    const c = t.connect({ roomID });
    await c.ready();
    c.sendRaw(JSON.stringify(['push', { timestamp: 1, clientGroupID: c.clientGroupID, mutations: [c.mutation('put', { key: 'k\ud800', value: 1 }, 1)], pushVersion: 1, schemaVersion: '1', requestID: 'r' }]));
    await c.until(() => c.errors.length > 0);
    expect(c.errors[0]).toEqual(['InvalidMessage', expect.stringMatching(/not well-formed Unicode .* at \/1\/mutations\/0\/args\/key/)]);
    // A mutator that builds such keys fails (skipped, counted as processed): \ud800 and \ud801 stay apart from everything.
    c.push([c.mutation('putBuilt', { code: 0xd800 }, 1), c.mutation('putBuilt', { code: 0xd801 }, 2), c.mutation('putBuilt', { code: 0x41 }, 3)]);
    await c.acked(3);
    expect(Object.fromEntries(c.state)).toEqual({ kA: 0x41 });
  });

  it(`refuses a value nested deeper than ${MAX_JSON_VALUE_DEPTH} levels; the room stays joinable`, async () => {
    t = await startTestServer();
    const roomID = uniqueID('room');
    const c = t.connect({ roomID });
    await c.ready();
    c.sendRaw(JSON.stringify(['push', { timestamp: 1, clientGroupID: c.clientGroupID, mutations: [c.mutation('put', { key: 'deep', value: nested(4100) }, 1)], pushVersion: 1, schemaVersion: '1', requestID: 'r' }]));
    await c.until(() => c.errors.length > 0);
    expect(c.errors[0]).toEqual(['InvalidMessage', expect.stringContaining(`nested deeper than ${MAX_JSON_VALUE_DEPTH} levels`)]);
    c.push([c.mutation('put', { key: 'ok', value: nested(MAX_JSON_VALUE_DEPTH - 1) }, 1)]);
    await c.acked(1);
    const d = t.connect({ roomID });
    await d.ready();
    expect(d.state.get('ok')).toEqual(nested(MAX_JSON_VALUE_DEPTH - 1));
  });
});
