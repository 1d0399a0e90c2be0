import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreCorruptError, StoreNotWritableError } from './sqlite-errors';
import { SqliteKvProvider } from './sqlite-kv-provider';
import { storeFileName } from './store-file-name';
import { killAll, startNodeChild } from './test-support/node-child';
import { useTempDataDir } from './test-support/temp-data-dir';

const NOBODY_UID = 65534;

const temp = useTempDataDir('roomsync-sqlite-provider-');
let dataDir: string;

beforeEach(() => {
  dataDir = temp.dir;
});

afterEach(() => killAll());

const open = (provider: SqliteKvProvider, name: string) => temp.open(provider, name);

describe('SqliteKvProvider', () => {
  it('creates its directory on the first open; list and drop of a missing directory create nothing', async () => {
    const provider = new SqliteKvProvider({ dataDir: join(dataDir, 'a', 'b') });
    expect(await provider.list()).toEqual([]);
    await provider.drop('x');
    expect(existsSync(join(dataDir, 'a'))).toBe(false);
    await open(provider, 'x');
    expect(readdirSync(join(dataDir, 'a', 'b'))).toContain('x.sqlite');
  });

  it('lists names too long for a file name from the database itself, and ignores files that are not stores', async () => {
    const provider = new SqliteKvProvider({ dataDir });
    const long = `roomsync:${'u'.repeat(150)}:${'r'.repeat(150)}`;
    await open(provider, long);
    await open(provider, 'short');
    writeFileSync(join(dataDir, 'notes.txt'), 'not a store');
    expect(readdirSync(dataDir).some((f) => f.includes('~'))).toBe(true);
    expect([...(await provider.list())].sort()).toEqual([long, 'short']);
  });

  it('drop removes the file and its -wal and -shm companions', async () => {
    const provider = new SqliteKvProvider({ dataDir });
    const store = await open(provider, 'gone');
    const w = await store.write();
    await w.put('k', 1);
    await w.commit();
    expect(readdirSync(dataDir).sort()).toEqual(['gone.sqlite', 'gone.sqlite-shm', 'gone.sqlite-wal']);
    await provider.drop('gone');
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('a file that is not a database is a StoreCorruptError naming it', async () => {
    const path = join(dataDir, storeFileName('broken'));
    writeFileSync(path, 'this is not a SQLite database, just enough bytes to look like a header '.repeat(20));
    const error = await new SqliteKvProvider({ dataDir }).open('broken').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreCorruptError);
    expect((error as StoreCorruptError).path).toBe(path);
    expect((error as Error).message).toContain(path);
  });

  it('a SQLite database of something else is refused, not written to', async () => {
    const path = join(dataDir, storeFileName('foreign'));
    const other = new Database(path);
    other.exec('CREATE TABLE accounts (id INTEGER PRIMARY KEY)');
    other.close();
    await expect(new SqliteKvProvider({ dataDir }).open('foreign')).rejects.toBeInstanceOf(StoreCorruptError);
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all()).toEqual(['accounts']);
    check.close();
  });

  it('a data directory that cannot be a directory is a StoreNotWritableError', async () => {
    const file = join(dataDir, 'a-file');
    writeFileSync(file, '');
    const error = await new SqliteKvProvider({ dataDir: join(file, 'data') }).open('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreNotWritableError);
    expect((error as Error).message).toContain(join(file, 'data'));
  });

  it('a data directory without write permission is a StoreNotWritableError (checked as an unprivileged user)', async () => {
    const readOnly = join(dataDir, 'read-only');
    mkdirSync(readOnly);
    chmodSync(readOnly, 0o555);
    chmodSync(dataDir, 0o755);
    // Root may write anywhere: the check then runs in a child process that gave up root first.
    const asRoot = process.getuid?.() === 0;
    const child = startNodeChild('src/node/test-fixtures/open-store.ts', [readOnly, 'x', asRoot ? String(NOBODY_UID) : '']);
    expect(await child.exited).toBe(0);
    expect(JSON.parse(child.lines.at(-1) ?? '{}')).toMatchObject({ error: 'StoreNotWritableError', kind: 'StoreNotWritable' });
  });
});
