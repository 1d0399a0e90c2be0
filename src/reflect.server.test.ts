import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createServer, type RoomsyncServer } from '../server/index';
import type { WriteTransaction } from './db/transaction-types';
import { MemoryKvProvider } from './kv/memory-provider';
import { Reflect } from './reflect';

const mutators = {
  put: async (tx: WriteTransaction, args: { key: string; value: number }) => {
    await tx.put(args.key, args.value);
  },
  increment: async (tx: WriteTransaction, key: string) => {
    const value = ((await tx.get(key)) as number | undefined) ?? 0;
    await tx.put(key, value + 1);
  },
};

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

let count = 0;

async function startServer(): Promise<{ server: RoomsyncServer; url: string }> {
  const server = createServer({ mutators });
  const { url } = await server.listen(0, '127.0.0.1');
  cleanup.push(() => server.close());
  return { server, url };
}

function client(url: string, userID: string): Reflect<typeof mutators> {
  const r = new Reflect({
    userID,
    roomID: 'e2e-room',
    socketOrigin: url,
    auth: userID,
    schemaVersion: '1',
    mutators,
    logSinks: [],
    environment: { WebSocket },
    kvStore: new MemoryKvProvider(`reflect-e2e-${++count}`),
  });
  cleanup.push(() => r.close());
  return r;
}

describe('Reflect against the reference server', () => {
  it('two clients converge through the server, concurrent increments included', async () => {
    const { url } = await startServer();
    const a = client(url, 'alice');
    const b = client(url, 'bob');
    await vi.waitFor(() => expect(a.online && b.online).toBe(true));

    await a.mutate.put({ key: 'x', value: 1 });
    await vi.waitFor(async () => expect(await b.query((tx) => tx.get('x'))).toBe(1));

    await Promise.all([a.mutate.increment('n'), b.mutate.increment('n'), a.mutate.increment('n'), b.mutate.increment('n')]);
    for (const r of [a, b]) {
      await vi.waitFor(async () => {
        expect(r.pendingMutationCount).toBe(0);
        expect(await r.query((tx) => tx.get('n'))).toBe(4);
      });
    }
  });

  it('catches up after being offline, and the server applies what was done offline exactly once', async () => {
    const { url } = await startServer();
    const a = client(url, 'alice');
    const b = client(url, 'bob');
    await vi.waitFor(() => expect(a.online && b.online).toBe(true));
    b.disconnect();
    await vi.waitFor(() => expect(b.online).toBe(false));
    await a.mutate.increment('n');
    await b.mutate.increment('n');
    await b.mutate.increment('n');
    b.reconnect();
    for (const r of [a, b]) {
      await vi.waitFor(async () => {
        expect(r.pendingMutationCount).toBe(0);
        expect(await r.query((tx) => tx.get('n'))).toBe(3);
      });
    }
  });
});
