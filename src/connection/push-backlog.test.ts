import { describe, expect, it } from 'vitest';
import type { PokeBody, PushBody } from '../protocol/generated/types';
import { POKE_HOLD_MAX_MS, POKE_HOLD_MIN_REPLAYS } from './connection';
import { PUSH_MAX_BUFFERED_BYTES, PUSH_WINDOW_FRAMES, PUSH_WINDOW_STALL_MS } from './pusher';
import type { FakeSocket } from './testing/fake-socket';
import { CLIENT_ID, Harness } from './testing/harness';

function pushes(socket: FakeSocket): PushBody[] {
  return socket.messages.filter((m): m is ['push', PushBody] => (m as unknown[])[0] === 'push').map(([, body]) => body);
}

function frameRanges(socket: FakeSocket): [number, number][] {
  return pushes(socket).map((body) => [body.mutations[0]!.id, body.mutations.at(-1)!.id]);
}

/** A server that acknowledges, in one poke each, the given last mutation ids. */
class AckingServer {
  cookie = 0;
  constructor(private readonly h: Harness) {}

  ack(lastMutationID: number, patch: PokeBody['patch'] = []): void {
    const baseCookie = this.cookie === 0 ? null : this.cookie;
    this.cookie++;
    this.h.socket.deliver(['poke', { baseCookie, cookie: this.cookie, lastMutationIDChanges: { [CLIENT_ID]: lastMutationID }, patch, requestID: `p${this.cookie}` }]);
  }
}

async function connectedWithBacklog(count: number, maxMutations: number): Promise<{ h: Harness; server: AckingServer }> {
  const h = new Harness({ pushLimits: { maxMutations, maxFrameBytes: 1024 * 1024 } });
  for (let i = 0; i < count; i++) h.target.mutate('increment', { key: 'n', delta: 1 });
  await h.connectLast();
  return { h, server: new AckingServer(h) };
}

describe('pushing a backlog', () => {
  it('sends frames of at most the mutation limit, no more than the window ahead of the acknowledgements, refilled from half', async () => {
    const { h, server } = await connectedWithBacklog(200, 10);
    expect(frameRanges(h.socket)).toHaveLength(PUSH_WINDOW_FRAMES);
    expect(frameRanges(h.socket)[0]).toEqual([1, 10]);
    server.ack(10);
    await h.settle();
    expect(frameRanges(h.socket)).toHaveLength(PUSH_WINDOW_FRAMES);
    server.ack(10 * (PUSH_WINDOW_FRAMES / 2));
    await h.settle();
    expect(frameRanges(h.socket)).toHaveLength(PUSH_WINDOW_FRAMES + PUSH_WINDOW_FRAMES / 2);
    expect(frameRanges(h.socket).at(-1)).toEqual([111, 120]);
    server.ack(120);
    await h.settle();
    expect(frameRanges(h.socket).at(-1)).toEqual([191, 200]);
    server.ack(200);
    await h.settle();
    expect(h.target.pendingMutations()).toEqual([]);
  });

  it('keeps each frame within the byte limit, measured as UTF-8', async () => {
    const h = new Harness({ pushLimits: { maxMutations: 1000, maxFrameBytes: 2000 } });
    for (let i = 0; i < 12; i++) h.target.mutate('note', { text: 'é'.repeat(200) });
    await h.connectLast();
    const sizes = h.socket.sent.map((text) => new TextEncoder().encode(text).length);
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(2000);
    expect(pushes(h.socket).flatMap((b) => b.mutations.map((m) => m.id))).toEqual([...Array(12).keys()].map((i) => i + 1));
  });

  it(`counts a window no poke acknowledges as delivered after ${PUSH_WINDOW_STALL_MS} ms (a server need not poke for what it already had)`, async () => {
    const { h } = await connectedWithBacklog(100, 10);
    h.socket.deliver(['pong', {}]);
    await h.clock.advance(PUSH_WINDOW_STALL_MS - 1);
    expect(pushes(h.socket)).toHaveLength(PUSH_WINDOW_FRAMES);
    h.socket.deliver(['pong', {}]);
    await h.clock.advance(1);
    expect(pushes(h.socket)).toHaveLength(10);
  });

  it('waits while the socket holds more than its buffer allowance unsent', async () => {
    const h = new Harness({ pushLimits: { maxMutations: 10, maxFrameBytes: 1024 * 1024 } });
    await h.connectLast();
    h.socket.bufferedAmount = PUSH_MAX_BUFFERED_BYTES + 1;
    for (let i = 0; i < 30; i++) h.target.mutate('m');
    await h.settle();
    expect(frameRanges(h.socket)).toEqual([[1, 10]]);
    h.socket.bufferedAmount = 0;
    new AckingServer(h).ack(10);
    await h.settle();
    expect(frameRanges(h.socket)).toEqual([
      [1, 10],
      [11, 20],
      [21, 30],
    ]);
  });

  it('does not send again what a poke received on this socket already acknowledged', async () => {
    const h = new Harness({ pushLimits: { maxMutations: 10, maxFrameBytes: 1024 * 1024 } });
    for (let i = 0; i < 30; i++) h.target.mutate('m');
    await h.settle();
    h.socket.connect();
    new AckingServer(h).ack(25); // the catch-up poke right after connected
    await h.settle();
    expect(frameRanges(h.socket)).toEqual([[26, 30]]);
  });
});

describe('pokes while a backlog drains', () => {
  it('wait and merge while they would leave more to replay than they acknowledge, so the replays do not grow with the square of the backlog', async () => {
    const backlog = 10 * POKE_HOLD_MIN_REPLAYS;
    const { h, server } = await connectedWithBacklog(backlog, 500);
    for (let acked = 500; acked <= backlog; acked += 500) {
      server.ack(acked, [{ op: 'put', key: 'n', value: acked }]);
      await h.settle();
    }
    expect(h.target.pendingMutations()).toEqual([]);
    expect(h.target.applied.length).toBeLessThanOrEqual(3);
    expect(h.target.data.get('n')).toBe(backlog);
  });

  it(`go in once they acknowledge half of what is left when they have waited ${POKE_HOLD_MAX_MS} ms`, async () => {
    const backlog = 10 * POKE_HOLD_MIN_REPLAYS;
    const { h, server } = await connectedWithBacklog(backlog, 500);
    server.ack(500);
    for (let ms = 0; ms < POKE_HOLD_MAX_MS; ms += 1000) {
      h.socket.deliver(['pong', {}]);
      await h.clock.advance(1000);
    }
    server.ack(1000);
    await h.settle();
    expect(h.target.applied).toEqual([]);
    server.ack(backlog / 2);
    await h.settle();
    expect(h.target.applied.map((b) => [b.baseCookie, b.cookie])).toEqual([[null, 3]]);
  });

  it('never wait in ordinary use: a change from someone else shows at once while our mutation is in flight', async () => {
    const h = new Harness();
    await h.connectLast();
    h.target.mutate('m');
    await h.settle();
    h.socket.deliver(['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'theirs', value: 1 }], requestID: 'p1' }]);
    await h.settle();
    expect(h.target.data.get('theirs')).toBe(1);
  });
});
