import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PushBody } from '../protocol/generated/types';
import type { FakeSocket } from './testing/fake-socket';
import { CLIENT_ID, Harness } from './testing/harness';

type Command =
  | { readonly type: 'mutate'; readonly count: number }
  | { readonly type: 'read' }
  | { readonly type: 'poke' }
  | { readonly type: 'badPoke' }
  | { readonly type: 'accept' }
  | { readonly type: 'drop'; readonly clean: boolean }
  | { readonly type: 'reconnect' }
  | { readonly type: 'advance'; readonly ms: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ type: fc.constant('mutate' as const), count: fc.integer({ min: 1, max: 8 }) }) },
  { weight: 4, arbitrary: fc.constant({ type: 'read' as const }) },
  { weight: 3, arbitrary: fc.constant({ type: 'poke' as const }) },
  { weight: 1, arbitrary: fc.constant({ type: 'badPoke' as const }) },
  { weight: 3, arbitrary: fc.constant({ type: 'accept' as const }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('drop' as const), clean: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ type: 'reconnect' as const }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 20_000 }) }) },
);

/** Small, so that pushes split and the window of frames in flight fills. */
const MAX_MUTATIONS_PER_PUSH = 2;

/**
 * A server that checks what arrives on the wire: per socket, mutation ids
 * strictly increasing; across sockets, no gap after what it has processed;
 * no push over the limit. Frames it has not read when a socket drops are
 * lost in flight.
 */
class CheckingServer {
  processed = 0;
  cookie = 0;
  readonly #read = new Map<FakeSocket, number>();
  readonly #lastOnSocket = new Map<FakeSocket, number>();
  readonly #sentCookie = new Map<FakeSocket, number | null>();

  constructor(private readonly h: Harness) {}

  get live(): FakeSocket | undefined {
    const socket = this.h.sockets.at(-1);
    return socket !== undefined && socket.readyState === 1 && socket.closedByClient === null ? socket : undefined;
  }

  accept(): void {
    const socket = this.h.sockets.at(-1);
    if (socket === undefined || socket.readyState !== 0) return;
    socket.connect();
    const base = socket.params.get('baseCookie');
    this.#sentCookie.set(socket, base === '' || base === null ? null : Number(base));
    this.poke(socket);
  }

  poke(socket: FakeSocket | undefined = this.live, bad = false): void {
    if (socket === undefined || !this.#sentCookie.has(socket)) return;
    const baseCookie = this.#sentCookie.get(socket) ?? null;
    const cookie = ++this.cookie;
    this.#sentCookie.set(socket, cookie);
    socket.deliver([
      'poke',
      {
        baseCookie: bad ? (baseCookie ?? 0) + 1000 : baseCookie,
        cookie,
        lastMutationIDChanges: { [CLIENT_ID]: this.processed },
        patch: [],
        requestID: `p${cookie}`,
      },
    ]);
  }

  /** The frames still in flight on a dropped socket never arrive. */
  drop(clean: boolean): void {
    const socket = this.live;
    if (socket === undefined) return;
    this.#read.set(socket, socket.sent.length);
    socket.drop(clean);
  }

  /** Reads the new frames of the live socket and checks the pushes. */
  readFrames(): void {
    const socket = this.live;
    if (socket !== undefined) {
      const from = this.#read.get(socket) ?? 0;
      for (const text of socket.sent.slice(from)) {
        const message = JSON.parse(text) as ['push', PushBody] | ['ping', object];
        if (message[0] === 'ping') {
          if (socket === this.live) socket.deliver(['pong', {}]);
          continue;
        }
        expect(message[1].mutations.length, 'no push over the limit').toBeLessThanOrEqual(MAX_MUTATIONS_PER_PUSH);
        for (const mutation of message[1].mutations) {
          const last = this.#lastOnSocket.get(socket) ?? 0;
          expect(mutation.id, 'ids strictly increase on a socket').toBeGreaterThan(last);
          this.#lastOnSocket.set(socket, mutation.id);
          expect(mutation.id, 'no gap after what the server processed').toBeLessThanOrEqual(this.processed + 1);
          if (mutation.id === this.processed + 1) this.processed = mutation.id;
        }
      }
      this.#read.set(socket, socket.sent.length);
    }
  }
}

async function run(commands: readonly Command[]): Promise<void> {
  const h = new Harness({ pushLimits: { maxMutations: MAX_MUTATIONS_PER_PUSH, maxFrameBytes: 1024 * 1024 } });
  const server = new CheckingServer(h);
  let created = 0;
  const step = () => h.settle();
  await step();
  for (const c of commands) {
    switch (c.type) {
      case 'mutate':
        for (let i = 0; i < c.count; i++) h.target.mutate('m', created++);
        break;
      case 'read':
        server.readFrames();
        break;
      case 'poke':
        server.poke();
        break;
      case 'badPoke':
        server.poke(server.live, true);
        break;
      case 'accept':
        server.accept();
        break;
      case 'drop':
        server.drop(c.clean);
        break;
      case 'reconnect':
        h.connection.reconnect();
        break;
      case 'advance':
        await h.clock.advance(c.ms);
        break;
    }
    await step();
  }
  // Let the network behave until everything is acknowledged.
  for (let round = 0; round < 20 && h.target.pendingMutations().length > 0; round++) {
    await h.clock.advance(60_000);
    server.accept();
    await step();
    server.readFrames();
    server.poke();
    await step();
  }
  expect(h.target.pendingMutations()).toEqual([]);
  expect(server.processed).toBe(created);
  expect(h.target.lastMutationID()).toBe(created);
  h.connection.close();
}

describe('connection property', () => {
  it('never loses, duplicates or reorders a mutation on the wire, nor exceeds the push limit, across drops, bad pokes and reconnects', async () => {
    await fc.assert(fc.asyncProperty(fc.array(command, { maxLength: 40 }), run), { numRuns: 150 });
  });
});
