/**
 * The durability proof of roomsync/node (issue 15): a real child process
 * mutates offline on a dataDir and is killed with SIGKILL; the next client on
 * that dataDir, with the reference server up, pushes every mutation, and the
 * server applies each exactly once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createServer, MemoryStorage } from '../../server/index';
import { Reflect } from './index';
import { killAll, processExists, startNodeChild } from './test-support/node-child';
import { PROOF_ROOM_ID, PROOF_USER_ID, counterMutators } from './test-fixtures/counter-mutators';

const SCRIPT = 'src/node/test-fixtures/mutate-then-die.ts';
const SYNC_TIMEOUT_MS = 20_000;

let cleanup: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
  await killAll();
});

/** A ws:// origin nothing listens on: the port of a server that was closed again. */
async function closedOrigin(): Promise<string> {
  const server = createNetServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as { port: number };
  await new Promise((closed) => server.close(closed));
  return `ws://127.0.0.1:${port}`;
}

function tempDataDir(): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'roomsync-sigkill-'));
  cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
  return dataDir;
}

/**
 * Starts `processes` children on one dataDir, lets them mutate at the same
 * time, and resolves with their client ids once each died of SIGKILL and its
 * PID is gone.
 */
async function mutateOfflineAndDie(dataDir: string, count: number, when: 'at once' | 'turn', processes = 1): Promise<string[]> {
  const args = [dataDir, await closedOrigin(), String(count), ...(when === 'turn' ? ['turn'] : [])];
  const children = Array.from({ length: processes }, () => startNodeChild(SCRIPT, args));
  const clientIDs = await Promise.all(
    children.map(async (child) => /^client (\S+) group \S+$/.exec(await child.waitForLine((line) => line.startsWith('client ')))![1]!),
  );
  for (const child of children) child.send('go');
  for (const child of children) {
    expect(await child.exited, child.stderr.join('\n')).toBe('SIGKILL');
    expect(processExists(child.pid)).toBe(false);
  }
  return clientIDs;
}

/** Opens the dataDir again with the reference server up; resolves once nothing is pending. */
async function syncAgain(dataDir: string) {
  const storage = new MemoryStorage();
  const server = createServer({ mutators: counterMutators, storage });
  const { url } = await server.listen(0, '127.0.0.1');
  cleanup.push(() => server.close());
  const r = new Reflect({ userID: PROOF_USER_ID, roomID: PROOF_ROOM_ID, socketOrigin: url, auth: PROOF_USER_ID, mutators: counterMutators, dataDir, logSinks: [] });
  cleanup.push(() => r.close());
  await vi.waitFor(
    () => {
      expect(r.online).toBe(true);
      expect(r.pendingMutationCount).toBe(0);
    },
    { timeout: SYNC_TIMEOUT_MS, interval: 20 },
  );
  const room = await storage.loadRoom(PROOF_ROOM_ID);
  const live = new Map(room?.entries.flatMap((e) => (e.json === undefined ? [] : [[e.key, JSON.parse(e.json) as unknown] as const])));
  return {
    local: await r.query((tx) => tx.get('count')),
    server: live.get('count'),
    items: [...live.keys()].filter((k) => k.startsWith('item/')).length,
    lastMutationIDOf: (clientID: string) => room?.clients.find((c) => c.clientID === clientID)?.lastMutationID,
  };
}

describe('roomsync/node with a dataDir: a process SIGKILLed after offline mutations', () => {
  it.each([1, 40])('killed the moment the last mutate() resolves: the next process pushes all %i, each applied once', async (count) => {
    const dataDir = tempDataDir();
    const [killedClientID] = await mutateOfflineAndDie(dataDir, count, 'at once');
    const after = await syncAgain(dataDir);
    expect({ server: after.server, items: after.items, local: after.local }).toEqual({ server: count, items: count, local: count });
    expect(after.lastMutationIDOf(killedClientID!)).toBe(count);
  }, 60_000);

  it('killed one event-loop turn after the last mutate(): the next process pushes all 40, each applied once', async () => {
    const dataDir = tempDataDir();
    const [killedClientID] = await mutateOfflineAndDie(dataDir, 40, 'turn');
    const after = await syncAgain(dataDir);
    expect({ server: after.server, items: after.items, local: after.local }).toEqual({ server: 40, items: 40, local: 40 });
    expect(after.lastMutationIDOf(killedClientID!)).toBe(40);
  }, 60_000);

  it('two processes of one user and room on one dataDir, mutating at once, both killed: the next pushes all 80, each applied once', async () => {
    const dataDir = tempDataDir();
    const killed = await mutateOfflineAndDie(dataDir, 40, 'at once', 2);
    const after = await syncAgain(dataDir);
    expect({ server: after.server, items: after.items, local: after.local }).toEqual({ server: 80, items: 40, local: 80 });
    expect(killed.map((clientID) => after.lastMutationIDOf(clientID))).toEqual([40, 40]);
  }, 60_000);
});
