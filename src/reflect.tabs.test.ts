/**
 * Two clients of one user and room in one process share one local store
 * (fake IndexedDB) and one client group, as two tabs of one browser do.
 */
import { IDBFactory } from 'fake-indexeddb';
import { createServer as createNetServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createServer } from '../server/index';
import { alwaysOn } from './connection/default-environment';
import { FakeClock } from './connection/testing/fake-clock';
import type { WriteTransaction } from './db/transaction-types';
import { MemoryKvProvider } from './kv/memory-provider';
import { Reflect } from './reflect';

const mutators = {
  increment: async (tx: WriteTransaction, key: string) => {
    await tx.put(key, (((await tx.get(key)) as number | undefined) ?? 0) + 1);
  },
};

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A loopback port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Moves the fake clock in small steps, letting the real IndexedDB and channel work run between them. */
async function advanceInSteps(clock: FakeClock, ms: number, stepMs = 10): Promise<void> {
  for (let t = 0; t < ms; t += stepMs) {
    await clock.advance(stepMs);
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  }
}

function tab(options: { idbFactory: IDBFactory; clock: FakeClock; port: number; userID?: string }) {
  const r = new Reflect({
    userID: options.userID ?? 'tess',
    roomID: 'tabs',
    socketOrigin: `ws://127.0.0.1:${options.port}`,
    auth: options.userID ?? 'tess',
    mutators,
    logSinks: [],
    idbFactory: options.idbFactory,
    environment: { clock: options.clock, timers: options.clock, WebSocket, visibility: alwaysOn, network: alwaysOn },
  });
  cleanup.push(() => r.close());
  return r;
}

describe('two tabs of one user and room', () => {
  it('see each other\'s offline edits in under a second, without a server; the closed one\'s edits are pushed by the other exactly once', async () => {
    const idbFactory = new IDBFactory();
    const clock = new FakeClock(1_000_000);
    const port = await freePort();
    const a = tab({ idbFactory, clock, port });
    const b = tab({ idbFactory, clock, port });
    expect(await b.clientGroupID).toBe(await a.clientGroupID);

    const seenByB: { value: unknown; at: number }[] = [];
    b.subscribe((tx) => tx.get('n'), (value) => seenByB.push({ value, at: clock.now() }));
    await advanceInSteps(clock, 100);
    const madeAt = clock.now();
    await a.mutate.increment('n');
    await a.mutate.increment('n');
    await advanceInSteps(clock, 1000);
    const arrival = seenByB.find((s) => s.value === 2);
    expect(arrival).toBeDefined();
    expect(arrival!.at - madeAt).toBeLessThan(1000);
    expect(b.pendingMutationCount).toBe(2);

    await b.mutate.increment('n');
    await a.close();
    expect(a.closed).toBe(true);

    // The server comes up where both tabs pointed; b connects and pushes a's edits and its own.
    const server = createServer({ mutators });
    await server.listen(port, '127.0.0.1');
    cleanup.push(() => server.close());
    b.reconnect();
    await vi.waitFor(
      async () => {
        await clock.advance(10);
        expect(b.pendingMutationCount).toBe(0);
      },
      { timeout: 10_000 },
    );

    const reader = new Reflect({
      userID: 'reader',
      roomID: 'tabs',
      socketOrigin: `ws://127.0.0.1:${port}`,
      auth: 'reader',
      mutators,
      logSinks: [],
      kvStore: new MemoryKvProvider('tabs-reader'),
      environment: { WebSocket },
    });
    cleanup.push(() => reader.close());
    await vi.waitFor(async () => expect(await reader.query((tx) => tx.get('n'))).toBe(3), { timeout: 10_000 });
  });

  it('a newer build in another tab starts a group of its own, and the older tabs are told an update is needed', async () => {
    const kvStore = new MemoryKvProvider('tabs-new-group');
    const reasons: { who: string; reason: unknown }[] = [];
    const open = (who: string, build: Record<string, (tx: WriteTransaction, key: string) => Promise<void>>) => {
      const r = new Reflect({
        userID: 'tess',
        roomID: 'builds',
        socketOrigin: null,
        mutators: build,
        kvStore,
        logSinks: [],
        onUpdateNeeded: (reason) => reasons.push({ who, reason }),
      });
      cleanup.push(() => r.close());
      return r;
    };
    const old = open('old', mutators);
    const sibling = open('sibling', mutators);
    expect(await sibling.clientGroupID).toBe(await old.clientGroupID);
    const newer = open('newer', { ...mutators, decrement: async () => {} });
    expect(await newer.clientGroupID).not.toBe(await old.clientGroupID);
    await vi.waitFor(() => expect(reasons.map((r) => r.who).sort()).toEqual(['old', 'sibling']));
    expect(reasons.every((r) => (r.reason as { type: string }).type === 'NewClientGroup')).toBe(true);
  });
});
