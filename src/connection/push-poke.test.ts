import { describe, expect, it } from 'vitest';
import { PUSH_VERSION, RECOVERY_PULL_TIMEOUT_MS } from '../../protocol/constants';
import type { Mutation, PokeBody, PushBody } from '../protocol/generated/types';
import { RECONNECT_JITTER_MAX_MS } from './backoff';
import { PullError } from './errors';
import type { FakeSocket } from './testing/fake-socket';
import { CLIENT_GROUP_ID, CLIENT_ID, Harness } from './testing/harness';

const SECOND = 1000;

function pushes(socket: FakeSocket): PushBody[] {
  return socket.messages.filter((m): m is ['push', PushBody] => (m as unknown[])[0] === 'push').map(([, body]) => body);
}

function pushedIDs(socket: FakeSocket): number[][] {
  return pushes(socket).map((body) => body.mutations.map((m: Mutation) => m.id));
}

function poke(baseCookie: number | null, cookie: number, acked?: number, patch: PokeBody['patch'] = []): PokeBody {
  return {
    baseCookie,
    cookie,
    lastMutationIDChanges: acked === undefined ? {} : { [CLIENT_ID]: acked },
    patch,
    requestID: `poke-${cookie}`,
  };
}

describe('push', () => {
  it('sends nothing while not connected, then everything pending on connect', async () => {
    const h = new Harness();
    h.target.mutate('a');
    h.target.mutate('b');
    await h.settle();
    expect(h.socket.sent).toEqual([]);
    h.socket.connect();
    await h.settle();
    expect(pushedIDs(h.socket)).toEqual([[1, 2]]);
  });

  it('sends in id order, resuming after the last one sent, with a fresh requestID each time', async () => {
    const h = new Harness();
    await h.connectLast();
    h.target.mutate('a', { n: 1 });
    h.target.mutate('b', { n: 2 });
    await h.settle();
    h.target.mutate('c', { n: 3 });
    await h.settle();
    const bodies = pushes(h.socket);
    expect(pushedIDs(h.socket)).toEqual([[1, 2], [3]]);
    expect(bodies[0]).toMatchObject({ clientGroupID: CLIENT_GROUP_ID, pushVersion: PUSH_VERSION, schemaVersion: '1' });
    expect(bodies[0]!.mutations[0]).toEqual({ id: 1, clientID: CLIENT_ID, name: 'a', args: { n: 1 }, timestamp: 0 });
    expect(new Set(bodies.map((b) => b.requestID)).size).toBe(2);
  });

  it('batches the mutations of one microtask batch into one frame (push delay 0)', async () => {
    const h = new Harness();
    await h.connectLast();
    for (let i = 0; i < 5; i++) h.target.mutate('m');
    await Promise.resolve();
    await Promise.resolve();
    expect(pushedIDs(h.socket)).toEqual([[1, 2, 3, 4, 5]]);
  });

  it('waits for a configured push delay', async () => {
    const h = new Harness({ pushDelayMs: 10 });
    await h.connectLast();
    h.target.mutate('m');
    await h.clock.advance(9);
    expect(pushes(h.socket)).toEqual([]);
    await h.clock.advance(1);
    expect(pushedIDs(h.socket)).toEqual([[1]]);
  });

  it('re-sends every unacknowledged mutation once after a reconnect, from the local cookie and lmid', async () => {
    const h = new Harness();
    await h.connectLast();
    h.target.mutate('a');
    h.target.mutate('b');
    h.target.mutate('c');
    await h.settle();
    h.socket.deliver(['poke', poke(null, 1, 1, [{ op: 'put', key: 'k', value: 1 }])]);
    await h.settle();
    expect(h.target.pendingMutations().map((m) => m.id)).toEqual([2, 3]);
    h.socket.drop();
    await h.clock.advance(5 * SECOND);
    expect(h.socket.params.get('baseCookie')).toBe('1');
    expect(h.socket.params.get('lmid')).toBe('1');
    h.socket.connect();
    await h.settle();
    expect(pushedIDs(h.socket)).toEqual([[2, 3]]);
    h.target.mutate('d');
    await h.settle();
    expect(pushedIDs(h.socket)).toEqual([[2, 3], [4]]);
  });

  it("warns 'Failed to push' when the send fails; the mutation stays pending and goes out after the reconnect", async () => {
    const h = new Harness();
    await h.connectLast();
    const broken = h.socket;
    broken.readyState = 3; // closed under us, no close event yet
    h.target.mutate('a');
    await h.settle();
    expect(h.linesAt('warn')).toContain('Failed to push');
    expect(h.connection.phase).toBe('disconnected');
    expect(h.target.pendingMutations()).toHaveLength(1);
    await h.clock.advance(RECONNECT_JITTER_MAX_MS);
    await h.connectLast();
    expect(pushedIDs(h.socket)).toEqual([[1]]);
  });
});

describe('pokes', () => {
  it('applies pokes in arrival order, one at a time, merging the ones that arrive meanwhile', async () => {
    const h = new Harness();
    await h.connectLast();
    let running = 0;
    let maxRunning = 0;
    const apply = h.target.applyPoke.bind(h.target);
    h.target.applyPoke = async (body) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise((resolve) => setImmediate(resolve));
      await apply(body);
      running--;
    };
    h.socket.deliver(['poke', poke(null, 1, undefined, [{ op: 'put', key: 'a', value: 1 }])]);
    h.socket.deliver(['poke', poke(1, 2, undefined, [{ op: 'put', key: 'a', value: 2 }])]);
    h.socket.deliver(['poke', poke(2, 3, undefined, [{ op: 'del', key: 'a' }, { op: 'put', key: 'b', value: 3 }])]);
    for (let i = 0; i < 10; i++) await h.settle();
    expect(maxRunning).toBe(1);
    expect(h.target.applied.map((b) => [b.baseCookie, b.cookie])).toEqual([
      [null, 1],
      [1, 3],
    ]);
    expect(Object.fromEntries(h.target.data)).toEqual({ b: 3 });
    expect(h.connection.phase).toBe('connected');
  });

  it('removes acknowledged mutations from the pending list', async () => {
    const h = new Harness();
    await h.connectLast();
    h.target.mutate('a');
    h.target.mutate('b');
    await h.settle();
    h.socket.deliver(['poke', poke(null, 1, 2)]);
    await h.settle();
    expect(h.target.pendingMutations()).toEqual([]);
    expect(h.target.lastMutationID()).toBe(2);
  });

  it('an out-of-order poke disconnects (UnexpectedBaseCookie) and reconnects from the local cookie', async () => {
    const h = new Harness();
    await h.connectLast();
    h.socket.deliver(['poke', poke(null, 4)]);
    await h.settle();
    h.socket.deliver(['poke', poke(7, 9)]);
    h.socket.deliver(['poke', poke(4, 5)]); // queued behind the bad one: dropped with its socket
    await h.settle();
    expect(h.socket.closedByClient?.reason).toBe('UnexpectedBaseCookie');
    expect(h.target.cookie).toBe(4);
    await h.clock.advance(5 * SECOND);
    expect(h.sockets).toHaveLength(2);
    expect(h.socket.params.get('baseCookie')).toBe('4');
  });

  it('a poke the store itself rejects as out of order is handled the same way', async () => {
    const h = new Harness();
    await h.connectLast();
    h.target.applyPoke = async () => {
      throw Object.assign(new Error('wrong base'), { kind: 'UnexpectedBaseCookie' });
    };
    h.socket.deliver(['poke', poke(null, 1)]);
    await h.settle();
    expect(h.socket.closedByClient?.reason).toBe('UnexpectedBaseCookie');
  });

  it('a poke the store fails to apply disconnects with PokeFailed', async () => {
    const h = new Harness();
    await h.connectLast();
    h.target.applyPoke = async () => {
      throw new Error('disk full');
    };
    h.socket.deliver(['poke', poke(null, 1)]);
    await h.settle();
    expect(h.socket.closedByClient?.reason).toBe('PokeFailed');
    expect(h.errorLines()).toContain('Failed to apply a poke');
  });
});

describe('recovery pull', () => {
  it('sends a pull and resolves with the answer of the same requestID', async () => {
    const h = new Harness();
    await h.connectLast();
    const answer = h.connection.pull('other-group', 3);
    const [name, body] = h.socket.messages.at(-1) as ['pull', { clientGroupID: string; cookie: number; requestID: string }];
    expect(name).toBe('pull');
    expect(body).toMatchObject({ clientGroupID: 'other-group', cookie: 3 });
    h.socket.deliver(['pull', { cookie: 9, lastMutationIDChanges: { x: 1 }, requestID: 'not-ours' }]);
    h.socket.deliver(['pull', { cookie: 9, lastMutationIDChanges: { x: 2 }, requestID: body.requestID }]);
    await expect(answer).resolves.toEqual({ cookie: 9, lastMutationIDChanges: { x: 2 }, requestID: body.requestID });
  });

  it("times out after 5 s with 'Failed to pull' (PullTimeout) and disconnects", async () => {
    const h = new Harness();
    await h.connectLast();
    const answer = h.connection.pull('other-group', null).catch((error: unknown) => error);
    await h.clock.advance(RECOVERY_PULL_TIMEOUT_MS);
    const error = await answer;
    expect(error).toBeInstanceOf(PullError);
    expect(error).toMatchObject({ kind: 'PullTimeout', message: 'Failed to pull' });
    expect(h.socket.closedByClient?.reason).toBe('PullTimeout');
  });

  it('fails at once when not connected, and when the socket goes away', async () => {
    const h = new Harness({ start: false });
    await expect(h.connection.pull('g', null)).rejects.toMatchObject({ kind: 'NotConnected', message: 'Failed to pull' });
    h.connection.start();
    await h.connectLast();
    const answer = h.connection.pull('g', null).catch((error: unknown) => error);
    h.socket.drop();
    expect(await answer).toMatchObject({ kind: 'AbruptClose', message: 'Failed to pull' });
  });
});
