import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { conformanceMutators } from '../../server/conformance-mutators';
import { createServer, SqliteStorage, type RoomsyncServer } from '../../server/index';
import { MemoryKvProvider } from '../kv/memory-provider';
import { Reflect } from '../reflect';
import { RECONNECT_JITTER_MAX_MS } from './backoff';
import { cleanupAfterEach } from './testing/cleanup';
import { FakeClock } from './testing/fake-clock';

const ROOM_ID = 'restart-room';
/** How far the fake clock moves per step while waiting for the reconnect. */
const STEP_MS = 50;

const onCleanup = cleanupAfterEach();

/** A server on its own database file; a second one on the same file and port is the first restarted. */
async function start(path: string, port = 0): Promise<{ server: RoomsyncServer; storage: SqliteStorage; port: number }> {
  const storage = new SqliteStorage({ path });
  const server = createServer({ storage });
  const listening = await server.listen(port, '127.0.0.1');
  onCleanup(() => server.close());
  return { server, storage, port: listening.port };
}

function whenState(r: Reflect, state: 'connected' | 'disconnected'): Promise<void> {
  return new Promise((resolve) => {
    if (r.connectionStatus.state === state) return resolve();
    const stop = r.onConnectionStatusChange((status) => {
      if (status.state !== state) return;
      stop();
      resolve();
    });
  });
}

describe('a restart of the reference server while connected', () => {
  it('finds the client connected again within a second of the server being back (real sockets, injected clock)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roomsync-restart-'));
    onCleanup(async () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'rooms.sqlite');
    const first = await start(path);
    const clock = new FakeClock(1_700_000_000_000);
    const r = new Reflect({
      userID: 'alice',
      roomID: ROOM_ID,
      socketOrigin: `ws://127.0.0.1:${first.port}`,
      auth: 'alice',
      mutators: conformanceMutators,
      logSinks: [],
      environment: { WebSocket, clock, timers: clock },
      kvStore: new MemoryKvProvider('restart'),
    });
    onCleanup(() => r.close());
    await whenState(r, 'connected');
    await r.mutate.increment({ key: 'n', delta: 1 });
    await vi.waitFor(() => expect(r.pendingMutationCount).toBe(0));

    await first.server.close();
    await whenState(r, 'disconnected');
    await r.mutate.increment({ key: 'n', delta: 1 });
    const second = await start(path, first.port);
    const backAt = clock.now();

    let attemptAt: number | undefined;
    const stop = r.onConnectionStatusChange((status) => {
      if (status.state === 'connecting') attemptAt ??= clock.now();
    });
    const connected = whenState(r, 'connected');
    while (attemptAt === undefined && clock.now() - backAt < RECONNECT_JITTER_MAX_MS) await clock.advance(STEP_MS);
    await connected;
    stop();
    expect(attemptAt! - backAt).toBeLessThan(RECONNECT_JITTER_MAX_MS);

    await vi.waitFor(() => expect(r.pendingMutationCount).toBe(0));
    const room = await second.storage.loadRoom(ROOM_ID);
    expect(room?.clients.find((c) => c.clientID === r.clientID)?.lastMutationID).toBe(2);
    expect(await r.query((tx) => tx.get('n'))).toBe(2);
  });
});
