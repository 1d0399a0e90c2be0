import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStorage } from './storage/postgres/postgres-storage';
import { SqliteStorage } from './storage/sqlite-storage';
import type { Storage } from './storage/types';
import { MAX_ID_BYTES, MAX_KEY_BYTES } from './stored-text';
import { startPostgres, type PostgresServer } from './test-support/postgres-server';
import { uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

/** Keys and ids no storage could keep exactly are refused the same way on SQLite and PostgreSQL; the room goes on. */
const dir = mkdtempSync(join(tmpdir(), 'roomsync-keys-'));
let postgres: PostgresServer;
let databases = 0;
let t: TestServer | undefined;
beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterEach(async () => {
  await t?.close();
  t = undefined;
});
afterAll(async () => {
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

const storages: Record<string, () => Promise<Storage>> = {
  SQLite: async () => new SqliteStorage({ path: join(dir, `${uniqueID('db')}.sqlite`) }),
  PostgreSQL: async () => PostgresStorage.open({ connectionString: await postgres.createDatabase(`keys_${++databases}`) }),
};

describe.each(Object.keys(storages))('on %s', (name) => {
  it('skips a mutation writing a key with U+0000, a lone surrogate or over the length limit; the room stays usable', async () => {
    t = await startTestServer({
      storage: await storages[name]!(),
      mutators: {
        // A lone surrogate cannot come in a frame (InvalidMessage): the mutator builds it.
        async putKey(tx, args: { key?: string; code?: number }) {
          await tx.put(args.key ?? `k${String.fromCharCode(args.code!)}`, 1);
        },
      },
    });
    const roomID = uniqueID('room');
    const c = t.connect({ roomID });
    await c.ready();
    const bad = [{ key: 'a\u0000b' }, { code: 0xd800 }, { key: 'x'.repeat(MAX_KEY_BYTES + 1) }];
    c.push([...bad.map((args, i) => c.mutation('putKey', args, i + 1)), c.mutation('putKey', { key: 'x'.repeat(MAX_KEY_BYTES) }, 4), c.mutation('put', { key: 'ok', value: '\u0000 in a value is fine' }, 5)]);
    await c.acked(5);
    const later = t.connect({ roomID });
    await later.ready();
    expect(Object.fromEntries(later.state)).toEqual({ ['x'.repeat(MAX_KEY_BYTES)]: 1, ok: '\u0000 in a value is fine' });
  });

  it('refuses connects and new clients whose ids cannot be stored', async () => {
    t = await startTestServer({ storage: await storages[name]!() });
    const nul = t.connect({ roomID: 'room\u0000x' });
    await nul.until(() => nul.closed);
    expect(nul.errors).toEqual([['InvalidConnectionRequest', 'roomID cannot be stored: it contains U+0000']]);
    const long = t.connect({ roomID: uniqueID('room'), clientID: 'c'.repeat(MAX_ID_BYTES + 1) });
    await long.until(() => long.closed);
    expect(long.errors[0]?.[1]).toMatch(/^clientID cannot be stored: it is 513 bytes long/);
    const user = t.connect({ roomID: uniqueID('room'), token: 'user\u0000x' });
    await user.until(() => user.closed);
    expect(user.errors[0]?.[0]).toBe('Unauthorized');
    const c = t.connect({ roomID: uniqueID('room') });
    await c.ready();
    c.push([c.mutation('put', { key: 'k', value: 1 }, 1, 'new\u0000client')]);
    await c.until(() => c.closed);
    expect(c.errors[0]).toEqual(['InvalidPush', expect.stringContaining('cannot be stored: it contains U+0000')]);
  });
});
