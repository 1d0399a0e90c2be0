import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createServer, MemoryStorage } from '../../server/index';
import type { WriteTransaction } from '../db/transaction-types';
import { MemoryKvProvider } from '../kv/memory-provider';
import { Reflect, SqliteKvProvider, type NodeReflectOptions } from './index';
import { nodeOptions } from './node-reflect';

const mutators = {
  put: async (tx: WriteTransaction, args: { key: string; value: number }) => {
    await tx.put(args.key, args.value);
  },
};

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'roomsync-node-reflect-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function client(options: Partial<NodeReflectOptions<typeof mutators>>): Reflect<typeof mutators> {
  const r = new Reflect({ userID: 'ann', roomID: 'room', socketOrigin: null, mutators, logSinks: [], ...options });
  cleanup.push(() => r.close());
  return r;
}

describe('Reflect from roomsync/node', () => {
  it('chooses the SQLite provider with a dataDir, memory without one, and keeps a store given', () => {
    const base = { userID: 'ann', roomID: 'room', socketOrigin: null };
    expect(nodeOptions({ ...base, dataDir: '/tmp/x' }).kvStore).toBeInstanceOf(SqliteKvProvider);
    expect(nodeOptions(base).kvStore).toBeInstanceOf(MemoryKvProvider);
    const given = new MemoryKvProvider('given');
    expect(nodeOptions({ ...base, kvStore: given }).kvStore).toBe(given);
    expect(() => nodeOptions({ ...base, kvStore: given, dataDir: '/tmp/x' })).toThrow('give dataDir or kvStore, not both');
  });

  it('connects with the ws package when no WebSocket is given', async () => {
    const server = createServer({ mutators, storage: new MemoryStorage() });
    const { url } = await server.listen(0, '127.0.0.1');
    cleanup.push(() => server.close());
    const r = client({ socketOrigin: url, auth: 'ann' });
    await vi.waitFor(() => expect(r.online).toBe(true));
    await r.mutate.put({ key: 'k', value: 1 });
    await vi.waitFor(() => expect(r.pendingMutationCount).toBe(0));
  });

  it('keeps data and unpushed mutations in the dataDir across a close and a new client', async () => {
    const dataDir = tempDir();
    const first = client({ dataDir });
    await first.mutate.put({ key: 'a', value: 1 });
    await first.mutate.put({ key: 'b', value: 2 });
    await first.close();
    expect(readdirSync(dataDir).filter((f) => f.endsWith('.sqlite')).length).toBeGreaterThan(0);
    // Every SQLite connection is closed: SQLite removes a write-ahead log when its last connection goes.
    expect(readdirSync(dataDir).filter((f) => f.endsWith('-wal'))).toEqual([]);

    const second = client({ dataDir });
    expect(await second.query(async (tx) => [await tx.get('a'), await tx.get('b')])).toEqual([1, 2]);
    await vi.waitFor(() => expect(second.pendingMutationCount).toBe(2));
  });

  it('keeps nothing on disk without a dataDir', async () => {
    const dir = tempDir();
    const r = client({});
    await r.mutate.put({ key: 'a', value: 1 });
    expect(existsSync(join(dir, 'anything'))).toBe(false);
    expect(await r.query((tx) => tx.get('a'))).toBe(1);
  });
});
