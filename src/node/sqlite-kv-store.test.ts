import Database from 'better-sqlite3';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StoreClosedError } from '../kv/errors';
import type { KvStore, ReadonlyJSONValue } from '../kv/types';
import { StoreBusyError } from './sqlite-errors';
import { BUSY_RETRY_FIRST_MS, BUSY_RETRY_MAX_MS } from './sqlite-file';
import { SqliteKvProvider, type SqliteKvProviderOptions } from './sqlite-kv-provider';
import { SqliteKvStore } from './sqlite-kv-store';
import { useTempDataDir } from './test-support/temp-data-dir';

const temp = useTempDataDir('roomsync-sqlite-store-');

async function open(name: string, options: Partial<SqliteKvProviderOptions> = {}): Promise<SqliteKvStore> {
  return (await temp.open(new SqliteKvProvider({ dataDir: temp.dir, ...options }), name)) as SqliteKvStore;
}

async function put(store: KvStore, key: string, value: ReadonlyJSONValue): Promise<void> {
  const w = await store.write();
  await w.put(key, value);
  await w.commit();
}

/** A clock that only moves when the store sleeps, and the sleeps it was asked for. */
function fakeTime(onSleep: (sleeps: number[]) => void = () => {}) {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    options: {
      now: () => now,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        now += ms;
        onSleep(sleeps);
      },
    },
  };
}

describe('SqliteKvStore', () => {
  it('keeps its data in a WAL-mode file that outlives every instance, and closes the file with the last one', async () => {
    const store = await open('roomsync:a:b');
    await put(store, 'k', { v: [1, 2] });
    expect(store.path).toBe(join(temp.dir, 'roomsync%3Aa%3Ab.sqlite'));
    const raw = new Database(store.path, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.prepare('SELECT value FROM kv WHERE key = ?').pluck().get('k')).toBe('{"v":[1,2]}');
    raw.close();
    await store.close();
    // SQLite removes the write-ahead log when the last connection closes.
    expect(existsSync(`${store.path}-wal`)).toBe(false);

    const reopened = await open('roomsync:a:b');
    const r = await reopened.read();
    expect(await r.get('k')).toEqual({ v: [1, 2] });
    r.release();
  });

  it('a read sees one snapshot of committed data, whatever is committed while it runs', async () => {
    const a = await open('snapshot');
    const b = await open('snapshot');
    await put(a, 'x', 0);
    await put(a, 'y', 0);
    const r = await a.read();
    expect(await r.get('x')).toBe(0);
    const w = await b.write();
    await w.put('x', 1);
    await w.put('y', 1);
    expect(await r.get('y')).toBe(0);
    await w.commit();
    expect(await r.get('y')).toBe(0);
    r.release();
    const later = await a.read();
    expect([await later.get('x'), await later.get('y')]).toEqual([1, 1]);
    later.release();
  });

  it('a write begun before close() may still commit (as in IndexedDB); new transactions are refused', async () => {
    const store = await open('closing');
    const w = await store.write();
    await store.close();
    await expect(store.write()).rejects.toBeInstanceOf(StoreClosedError);
    await w.put('k', 'v');
    await w.commit();
    const r = await (await open('closing')).read();
    expect(await r.get('k')).toBe('v');
    r.release();
  });

  it('a drop under an open write fails it with StoreClosedError and writes nothing', async () => {
    const store = await open('dropped-mid-write');
    const w = await store.write();
    await w.put('k', 'v');
    await new SqliteKvProvider({ dataDir: temp.dir }).drop('dropped-mid-write');
    await expect(w.put('k2', 'v')).rejects.toBeInstanceOf(StoreClosedError);
    await expect(w.commit()).rejects.toThrow('Store is closed: it was deleted');
    w.release();
    const r = await (await open('dropped-mid-write')).read();
    expect(await r.has('k')).toBe(false);
    r.release();
  });

  it('a file deleted by another process closes the store at its next transaction', async () => {
    const store = await open('deleted-elsewhere');
    await put(store, 'k', 1);
    for (const suffix of ['-wal', '-shm', '']) rmSync(store.path + suffix, { force: true });
    await expect(store.write()).rejects.toThrow('Store is closed: it was deleted by another process');
    expect(store.closed).toBe(true);
    const fresh = await open('deleted-elsewhere');
    const r = await fresh.read();
    expect(await r.has('k')).toBe(false);
    r.release();
  });

  it('a write waits for another process holding the write lock, retrying with growing waits, then goes ahead', async () => {
    const store = await open('busy');
    const other = new Database(store.path);
    other.exec('BEGIN IMMEDIATE');
    const time = fakeTime((sleeps) => {
      if (sleeps.length === 4) other.exec('COMMIT');
    });
    const waiting = await open('busy', time.options);
    await put(waiting, 'k', 'after the lock');
    other.close();
    expect(time.sleeps).toEqual([BUSY_RETRY_FIRST_MS, 2 * BUSY_RETRY_FIRST_MS, 4 * BUSY_RETRY_FIRST_MS, 8 * BUSY_RETRY_FIRST_MS]);
    const r = await store.read();
    expect(await r.get('k')).toBe('after the lock');
    r.release();
  });

  it('a write fails with StoreBusyError once another process held the lock for the busy timeout, and frees the store', async () => {
    const busyTimeoutMs = 100;
    const holder = await open('busy-timeout');
    const other = new Database(holder.path);
    other.exec('BEGIN IMMEDIATE');
    const time = fakeTime();
    const store = await open('busy-timeout', { ...time.options, busyTimeoutMs });
    await expect(store.write()).rejects.toBeInstanceOf(StoreBusyError);
    expect(time.sleeps.reduce((sum, ms) => sum + ms, 0)).toBe(busyTimeoutMs);
    expect(Math.max(...time.sleeps)).toBe(BUSY_RETRY_MAX_MS);
    other.exec('ROLLBACK');
    other.close();
    await put(store, 'k', 'free again');
  });
});
