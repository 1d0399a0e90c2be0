import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStorage } from './sqlite-storage';
import { describeStorageContract } from './storage-contract';

const dir = mkdtempSync(join(tmpdir(), 'roomsync-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

describeStorageContract('SqliteStorage', async () => new SqliteStorage({ path: join(dir, `db-${n++}.sqlite`) }));

describe('SqliteStorage on disk', () => {
  it('keeps committed batches across reopening', async () => {
    const path = join(dir, 'reopen.sqlite');
    const a = new SqliteStorage({ path });
    await a.createRoom('r', 1);
    await a.commitBatch('r', {
      baseVersion: 0,
      version: 1,
      entries: [{ key: '\u{1F600}', json: '{"deep":[null,true]}', version: 1 }],
      clients: [{ clientID: 'c', clientGroupID: 'g', lastMutationID: 9 }],
    });
    await a.close();
    const b = new SqliteStorage({ path, synchronous: 'NORMAL' });
    const room = await b.loadRoom('r');
    expect(room?.meta.version).toBe(1);
    expect(room?.entries).toEqual([{ key: '\u{1F600}', json: '{"deep":[null,true]}', version: 1 }]);
    expect(room?.clients[0]?.lastMutationID).toBe(9);
    await b.close();
  });
});

describe('SqliteStorage group commit', () => {
  it('commits batches of several rooms in one transaction, and fails only a bad batch', async () => {
    const flushes: (() => void)[] = [];
    const s = new SqliteStorage({ path: join(dir, 'group.sqlite'), schedule: (f) => flushes.push(f) });
    await s.createRoom('a', 0);
    await s.createRoom('b', 0);
    const a = s.commitBatch('a', { baseVersion: 0, version: 1, entries: [{ key: 'x', json: '1', version: 1 }], clients: [] });
    const b = s.commitBatch('b', { baseVersion: 0, version: 1, entries: [{ key: 'y', json: '2', version: 1 }], clients: [] });
    const bad = s.commitBatch('missing', { baseVersion: 0, version: 1, entries: [], clients: [] });
    expect(flushes).toHaveLength(1);
    flushes[0]!();
    await expect(Promise.all([a, b])).resolves.toBeDefined();
    await expect(bad).rejects.toThrow('Room missing does not exist');
    expect((await s.loadRoom('a'))?.entries).toEqual([{ key: 'x', json: '1', version: 1 }]);
    expect((await s.loadRoom('b'))?.meta.version).toBe(1);
    await s.close();
  });
});

describe('SqliteStorage migration', () => {
  it('adds the user column to a database from before clients were bound to users', async () => {
    const path = join(dir, 'old.sqlite');
    const Database = (await import('better-sqlite3')).default;
    const old = new Database(path);
    old.exec(`CREATE TABLE clients (room_id TEXT NOT NULL, client_id TEXT NOT NULL, client_group_id TEXT NOT NULL,
      last_mutation_id INTEGER NOT NULL, PRIMARY KEY (room_id, client_id)) WITHOUT ROWID;
      CREATE TABLE rooms (room_id TEXT PRIMARY KEY, version INTEGER NOT NULL, closed INTEGER NOT NULL DEFAULT 0,
      tombstone_horizon INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO rooms VALUES ('r', 3, 0, 0, 1); INSERT INTO clients VALUES ('r', 'c', 'g', 3);`);
    old.close();
    const s = new SqliteStorage({ path });
    expect((await s.loadRoom('r'))?.clients).toEqual([{ clientID: 'c', clientGroupID: 'g', lastMutationID: 3 }]);
    await s.close();
  });
});
