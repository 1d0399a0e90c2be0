import { describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { conformanceMutators } from '../../server/conformance-mutators';
import { createServer, type ServerOptions } from '../../server/index';
import { MemoryStorage } from '../../server/storage/memory-storage';
import { MemoryKvProvider } from '../kv/memory-provider';
import { Reflect } from '../reflect';
import { cleanupAfterEach } from './testing/cleanup';
import { PUSH_MAX_FRAME_BYTES, PUSH_MAX_MUTATIONS } from './push-limits';

const ROOM_ID = 'backlog-room';
const DRAIN_TIMEOUT_MS = 30_000;

const onCleanup = cleanupAfterEach();

let stores = 0;

async function startServer(options: ServerOptions = {}) {
  const storage = new MemoryStorage();
  const server = createServer({ storage, ...options });
  const { url } = await server.listen(0, '127.0.0.1');
  onCleanup(() => server.close());
  return { url, storage };
}

function client(url: string, userID: string): Reflect<typeof conformanceMutators> {
  const r = new Reflect({
    userID,
    roomID: ROOM_ID,
    socketOrigin: url,
    auth: userID,
    mutators: conformanceMutators,
    logSinks: [],
    environment: { WebSocket },
    kvStore: new MemoryKvProvider(`backlog-${++stores}`),
  });
  onCleanup(() => r.close());
  return r;
}

async function offlineClient(url: string): Promise<Reflect<typeof conformanceMutators>> {
  const r = client(url, 'alice');
  r.disconnect();
  await r.clientGroupID;
  return r;
}

/** The server's record of the client's last mutation, and a fresh client's view of the room. */
async function serverView(url: string, storage: MemoryStorage, clientID: string, keys: readonly string[]) {
  const room = await storage.loadRoom(ROOM_ID);
  const reader = client(url, 'reader');
  await vi.waitFor(() => expect(reader.online).toBe(true));
  const values = await vi.waitFor(async () => {
    const read = await reader.query(async (tx) => Promise.all(keys.map((k) => tx.get(k))));
    expect(read[0]).toBeDefined();
    return read;
  });
  return { lastMutationID: room?.clients.find((c) => c.clientID === clientID)?.lastMutationID, values };
}

describe('an offline backlog against the reference server', () => {
  it('drains 1,500 mutations (more than one push may carry), each applied exactly once', async () => {
    const { url, storage } = await startServer();
    const r = await offlineClient(url);
    await Promise.all(Array.from({ length: 1500 }, (_, i) => r.mutate.increment({ key: `k${i % 3}`, delta: 1 })));
    expect(r.pendingMutationCount).toBe(1500);
    r.reconnect();
    await vi.waitFor(() => expect(r.pendingMutationCount).toBe(0), { timeout: DRAIN_TIMEOUT_MS });
    expect(await r.query(async (tx) => [await tx.get('k0'), await tx.get('k1'), await tx.get('k2')])).toEqual([500, 500, 500]);
    expect(await serverView(url, storage, r.clientID, ['k0', 'k1', 'k2'])).toEqual({ lastMutationID: 1500, values: [500, 500, 500] });
  });

  it('drains through a server that accepts no more than the documented limits, large mutations included', async () => {
    const { url, storage } = await startServer({ maxMutationsPerPush: PUSH_MAX_MUTATIONS, maxFrameBytes: PUSH_MAX_FRAME_BYTES });
    const r = await offlineClient(url);
    const large = 'x'.repeat(Math.floor(PUSH_MAX_FRAME_BYTES / 4));
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 8; i++) {
      writes.push(r.mutate.put({ key: `large${i}`, value: large }));
      for (let j = 0; j < 150; j++) writes.push(r.mutate.increment({ key: 'n', delta: 1 }));
    }
    await Promise.all(writes);
    r.reconnect();
    await vi.waitFor(() => expect(r.pendingMutationCount).toBe(0), { timeout: DRAIN_TIMEOUT_MS });
    const view = await serverView(url, storage, r.clientID, ['n', 'large7']);
    expect(view).toEqual({ lastMutationID: 8 * 151, values: [8 * 150, large] });
  });
});
