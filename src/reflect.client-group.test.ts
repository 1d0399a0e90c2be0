import { afterEach, describe, expect, it } from 'vitest';
import { alwaysOn } from './connection/default-environment';
import { FakeClock } from './connection/testing/fake-clock';
import { FakeSocketServer } from './connection/testing/fake-socket';
import { seededRandom } from './connection/testing/harness';
import type { WriteTransaction } from './db/transaction-types';
import { MemoryKvProvider } from './kv/memory-provider';
import { Reflect } from './reflect';

const mutators = {
  put: async (tx: WriteTransaction, args: { key: string; value: number }) => {
    await tx.put(args.key, args.value);
  },
};

let n = 0;
const opened: Reflect<typeof mutators>[] = [];
afterEach(async () => {
  for (const r of opened.splice(0)) await r.close();
});

/** One page load: a new client over the store `storeName`, as a browser tab that reloads. */
function pageLoad(storeName: string, seed: number, clientStateNotFound: string[] = []) {
  const clock = new FakeClock(1000);
  const server = new FakeSocketServer(() => clock.now());
  const r = new Reflect({
    userID: 'u',
    roomID: 'room',
    socketOrigin: 'ws://sync.test',
    mutators,
    logSinks: [],
    onClientStateNotFound: () => clientStateNotFound.push('called'),
    environment: { clock, timers: clock, random: seededRandom(seed), WebSocket: server.WebSocket, visibility: alwaysOn, network: alwaysOn },
    kvStore: new MemoryKvProvider(storeName),
  });
  opened.push(r);
  return { r, clock, server };
}

function pushedMutations(messages: readonly unknown[]) {
  return messages.flatMap((m) => ((m as unknown[])[0] === 'push' ? (m as [string, { clientGroupID: string; mutations: { id: number; clientID: string }[] }])[1].mutations : []));
}

describe('the client group across page loads', () => {
  it('a reload joins the same group and pushes what the previous page left pending, under its own client id', async () => {
    const name = `group-${++n}`;
    const first = pageLoad(name, 1);
    await first.clock.advance(0);
    first.server.last.connect();
    first.r.disconnect();
    await first.r.mutate.put({ key: 'offline', value: 1 });
    await first.r.mutate.put({ key: 'offline', value: 2 });
    const firstGroup = await first.r.clientGroupID;
    await first.r.close();

    const second = pageLoad(name, 2);
    expect(await second.r.clientGroupID).toBe(firstGroup);
    expect(second.r.clientID).not.toBe(first.r.clientID);
    await second.clock.advance(0);
    expect(second.r.pendingMutationCount).toBe(2);
    const socket = second.server.last;
    expect(socket.params.get('clientGroupID')).toBe(firstGroup);
    socket.connect();
    await second.clock.advance(0);
    expect(pushedMutations(socket.messages).map((m) => [m.clientID, m.id])).toEqual([
      [first.r.clientID, 1],
      [first.r.clientID, 2],
    ]);
    expect(await second.r.query((tx) => tx.get('offline'))).toBe(2);
  });

  it('a group the server does not know is disabled; the next page load starts a new one', async () => {
    const name = `group-${++n}`;
    const notFound: string[] = [];
    const first = pageLoad(name, 3, notFound);
    const firstGroup = await first.r.clientGroupID;
    await first.clock.advance(0);
    first.server.last.deliver(['error', 'ClientNotFound', 'unknown client group']);
    await first.clock.advance(0);
    expect(notFound).toEqual(['called']);
    await first.r.close();

    const second = pageLoad(name, 4);
    expect(await second.r.clientGroupID).not.toBe(firstGroup);
  });
});
