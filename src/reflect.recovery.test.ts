/**
 * Mutation recovery against the reference server: a tab of another build
 * (another client group) closed while offline; a tab of this build pushes
 * its mutations under that group's id, exactly once, with no reload.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createServer } from '../server/index';
import { PersistentDagStore } from './dag/store';
import type { WriteTransaction } from './db/transaction-types';
import { MemoryKvProvider } from './kv/memory-provider';
import { hasPendingMutations, readGroups } from './persist/records';
import { Reflect } from './reflect';

const increment = async (tx: WriteTransaction, key: string) => {
  await tx.put(key, (((await tx.get(key)) as number | undefined) ?? 0) + 1);
};
const oldBuild = { increment };
const newBuild = { increment, reset: async (tx: WriteTransaction, key: string) => void (await tx.del(key)) };

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('mutation recovery through the reference server', () => {
  it("pushes a closed tab's offline mutations of another client group exactly once", async () => {
    const server = createServer({ mutators: newBuild });
    const { url } = await server.listen(0, '127.0.0.1');
    cleanup.push(() => server.close());
    const kvStore = new MemoryKvProvider('recovery-e2e');
    const open = (build: typeof oldBuild | typeof newBuild, userID = 'tess') => {
      const r = new Reflect({ userID, roomID: 'recovery', socketOrigin: url, auth: userID, mutators: build, kvStore, logSinks: [], environment: { WebSocket } });
      cleanup.push(() => r.close());
      return r;
    };

    // An old tab, offline, edits and closes before it could push.
    const old = open(oldBuild);
    old.disconnect();
    for (let i = 0; i < 3; i++) await old.mutate.increment('n');
    const oldGroup = await old.clientGroupID;
    await old.close();

    // A tab of the new build: a group of its own; it recovers the old group's mutations.
    const current = open(newBuild);
    expect(await current.clientGroupID).not.toBe(oldGroup);
    const reader = open(newBuild, 'reader');
    await vi.waitFor(async () => expect(await reader.query((tx) => tx.get('n'))).toBe(3), { timeout: 10_000 });

    const perdag = new PersistentDagStore(await kvStore.open(current.idbName));
    await vi.waitFor(async () => {
      const groups = await perdag.withRead((r) => readGroups(r));
      expect(hasPendingMutations(groups.get(oldGroup)!)).toBe(false);
    });
    // Nothing is pushed twice: the count stays.
    await current.mutate.increment('n');
    await vi.waitFor(async () => expect(await reader.query((tx) => tx.get('n'))).toBe(4), { timeout: 10_000 });
  });
});
