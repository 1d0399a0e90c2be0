import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mutation } from '../src/protocol';
import { TestClient, uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const CLIENTS = 3;
const KEYS = 3;

type Action =
  | { kind: 'inc'; client: number }
  | { kind: 'put'; client: number; key: number }
  | { kind: 'del'; client: number; key: number }
  | { kind: 'reconnect'; client: number }
  | { kind: 'settle'; client: number };

const client = fc.nat(CLIENTS - 1);
const key = fc.nat(KEYS - 1);
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('inc' as const), client }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('put' as const), client, key }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('del' as const), client, key }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reconnect' as const), client }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('settle' as const), client }) },
);

/** A client that outlives its sockets: its mutations, and the socket of the moment. */
class Peer {
  readonly mutations: Mutation[] = [];
  socket: TestClient;
  readonly clientID = uniqueID('c');
  readonly clientGroupID = uniqueID('g');

  constructor(private readonly roomID: string) {
    this.socket = t.connect({ roomID, clientID: this.clientID, clientGroupID: this.clientGroupID });
  }

  mutate(name: string, args: unknown): void {
    const m = this.socket.mutation(name, args, this.mutations.length + 1);
    this.mutations.push(m);
    this.socket.push([m]);
  }

  /** Closes, reconnects from the cookie and lmid it has, and re-sends what is not acknowledged. */
  async reconnect(): Promise<void> {
    const old = this.socket;
    await old.close();
    this.socket = t.connect({ roomID: this.roomID, clientID: this.clientID, clientGroupID: this.clientGroupID, baseCookie: old.cookie, lmid: old.lmid });
    for (const [k, v] of old.state) this.socket.state.set(k, v);
    if (old.outOfOrder.length > 0) throw new Error(old.outOfOrder.join());
    await this.socket.connected();
    const pending = this.mutations.filter((m) => m.id > old.lmid);
    if (pending.length > 0) this.socket.push(pending);
  }

  settle(): Promise<void> {
    return this.socket.acked(this.mutations.length);
  }
}

describe('convergence (property, real sockets)', () => {
  it('every client ends with the model state: nothing lost, nothing applied twice', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 40 }), async (actions) => {
        const roomID = uniqueID('conv');
        const peers = Array.from({ length: CLIENTS }, () => new Peer(roomID));
        await Promise.all(peers.map((p) => p.socket.ready()));
        const model = new Map<string, unknown>();
        let total = 0;
        for (const a of actions) {
          const p = peers[a.client]!;
          const k = `${a.client}/${'key' in a ? a.key : 0}`;
          if (a.kind === 'inc') {
            p.mutate('increment', { key: 'total', delta: 1 });
            total++;
          } else if (a.kind === 'put') {
            p.mutate('put', { key: k, value: p.mutations.length + 1 });
            model.set(k, p.mutations.length);
          } else if (a.kind === 'del') {
            p.mutate('del', { key: k });
            model.delete(k);
          } else if (a.kind === 'reconnect') {
            await p.reconnect();
          } else {
            await p.settle();
          }
        }
        if (total > 0) model.set('total', total);
        await Promise.all(peers.map((p) => p.settle()));
        const { json } = await t.admin('GET', '/stats');
        const version = (json.rooms as { roomID: string; version: number }[]).find((r) => r.roomID === roomID)!.version;
        for (const p of peers) {
          await p.socket.until(() => p.socket.cookie === version, 'room version');
          expect(p.socket.outOfOrder).toEqual([]);
          expect(Object.fromEntries(p.socket.state)).toEqual(Object.fromEntries(model));
        }
        await Promise.all(peers.map((p) => p.socket.close()));
      }),
      { numRuns: 25 },
    );
  });
});
