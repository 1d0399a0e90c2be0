import { describe, expect, it } from 'vitest';
import {
  CONNECT_TIMEOUT_MS,
  HIDDEN_DISCONNECT_DELAY_MS,
  INITIAL_TIME_TO_CONNECT_MS,
  PING_INTERVAL_MS,
  PONG_DEADLINE_MS,
} from '../../protocol/constants';
import { LAST_CONNECT_ERROR, TIME_TO_CONNECT_MS } from '../metrics/metric-names';
import { encodeAuthSubprotocol } from '../protocol/connect-request';
import { RECONNECT_JITTER_MAX_MS } from './backoff';
import { TimeoutError } from './errors';
import { Harness } from './testing/harness';

const SECOND = 1000;

/** Drops every socket as soon as it appears, stepping time by `stepMs` up to `untilMs`. */
async function failEveryAttempt(h: Harness, untilMs: number, stepMs = SECOND): Promise<void> {
  const failed = new Set<unknown>();
  while (h.clock.now() < untilMs) {
    await h.settle();
    const socket = h.sockets.at(-1);
    if (socket !== undefined && !failed.has(socket)) {
      failed.add(socket);
      socket.drop();
    }
    await h.clock.advance(stepMs);
  }
}

describe('connect request', () => {
  it('opens {socketOrigin}/api/sync/v1/connect with the exact query and the token as subprotocol', async () => {
    const h = new Harness({ auth: 'secret token (1)' });
    await h.settle();
    const socket = h.socket;
    expect(socket.wsid).toMatch(/^[A-Za-z0-9_-]{21}$/);
    expect(socket.url).toBe(
      `ws://sync.test/api/sync/v1/connect?clientID=client-1&clientGroupID=group-1&roomID=room-1&baseCookie=&ts=0&lmid=0&wsid=${socket.wsid}`,
    );
    expect(socket.protocols).toBe('secret%20token%20%281%29');
    expect(socket.protocols).toBe(encodeAuthSubprotocol('secret token (1)'));
  });

  it('omits the subprotocol without a token and uses a fresh wsid per socket', async () => {
    const h = new Harness();
    await h.settle();
    expect(h.socket.protocols).toBeUndefined();
    h.socket.drop();
    await h.clock.advance(5 * SECOND);
    expect(h.sockets).toHaveLength(2);
    expect(h.sockets[1]!.wsid).not.toBe(h.sockets[0]!.wsid);
  });

  it('does not connect while the page is hidden, and connects once it is visible', async () => {
    const h = new Harness({ visible: false });
    await h.clock.advance(60 * SECOND);
    expect(h.sockets).toHaveLength(0);
    h.visibility.set(true);
    await h.settle();
    expect(h.server.openedAt).toEqual([60 * SECOND]);
  });

  it('logs a wsid the server does not echo', async () => {
    const h = new Harness();
    await h.settle();
    h.socket.connect('someone-else');
    await h.settle();
    expect(h.connection.phase).toBe('connected');
    expect(h.linesAt('warn').some((line) => line.includes('someone-else'))).toBe(true);
  });
});

describe('back-off', () => {
  it('retries at 5, 15, 35, 75, 135, 195 s after successive failures from t=0', async () => {
    const h = new Harness();
    await failEveryAttempt(h, 200 * SECOND);
    expect(h.server.openedAt.map((ms) => ms / SECOND)).toEqual([0, 5, 15, 35, 75, 135, 195]);
  });

  it('is reset by a successful connect', async () => {
    const h = new Harness();
    await failEveryAttempt(h, 16 * SECOND); // failures at 0, 5, 15
    await h.clock.advanceTo(35 * SECOND);
    h.socket.connect();
    await h.settle();
    await h.clock.advance(SECOND);
    h.socket.error('RoomClosed');
    await h.clock.advance(5 * SECOND);
    expect(h.server.openedAt.map((ms) => ms / SECOND)).toEqual([0, 5, 15, 35, 41]);
  });

  it('reconnects within a second after a connected socket drops; the back-off starts from the first failed attempt', async () => {
    const h = new Harness();
    await h.connectLast();
    await h.clock.advance(3 * SECOND);
    h.socket.drop();
    await failEveryAttempt(h, 60 * SECOND, 10);
    // The jitter (190 ms) comes from the seeded random source; every retry after it backs off.
    expect(h.server.openedAt.map((ms) => ms / SECOND)).toEqual([0, 3.19, 8.19, 18.19, 38.19]);
  });

  it('reconnects after a drop of any kind: clean or abrupt close, ping timeout, out-of-order poke', async () => {
    const drops: ((h: Harness) => Promise<void>)[] = [
      async (h) => h.socket.drop(true),
      async (h) => h.socket.drop(false),
      async (h) => h.clock.advance(PING_INTERVAL_MS + PONG_DEADLINE_MS),
      async (h) => h.socket.deliver(['poke', { baseCookie: 7, cookie: 8, lastMutationIDChanges: {}, patch: [], requestID: 'r' }]),
    ];
    for (const drop of drops) {
      const h = new Harness();
      await h.connectLast();
      const droppedAt = h.clock.now();
      await drop(h);
      await h.settle();
      expect(h.connection.phase).toBe('disconnected');
      await h.clock.advance(RECONNECT_JITTER_MAX_MS);
      expect(h.sockets).toHaveLength(2);
      expect(h.sockets[1]!.openedAt - droppedAt).toBeLessThan(PING_INTERVAL_MS + PONG_DEADLINE_MS + RECONNECT_JITTER_MAX_MS);
    }
  });

  it('keeps the back-off for an error frame after connected: the server refused something', async () => {
    const h = new Harness();
    await h.connectLast();
    h.socket.error('InvalidPush', 'too big');
    await h.clock.advance(5 * SECOND - 1);
    expect(h.sockets).toHaveLength(1);
    await h.clock.advance(1);
    expect(h.server.openedAt).toEqual([0, 5 * SECOND]);
  });

  it('is connected again within a second of a restarted server being back', async () => {
    const h = new Harness();
    await h.connectLast();
    await h.clock.advance(3 * SECOND);
    h.socket.drop(true, 1001); // the server shuts down: close 1001 "going away"
    const backAt = h.clock.now(); // and is back at once
    for (let ms = 0; ms < RECONNECT_JITTER_MAX_MS && h.connection.phase !== 'connected'; ms += 10) {
      await h.clock.advance(10);
      if (h.sockets.length === 2 && h.socket.readyState === 0) h.socket.connect();
      await h.settle();
    }
    expect(h.connection.phase).toBe('connected');
    expect(h.clock.now() - backAt).toBeLessThan(RECONNECT_JITTER_MAX_MS);
  });

  it('spreads reconnects after a drop over [0, 1 s) with the injected random source', async () => {
    const delays: number[] = [];
    for (const random of [0, 0.25, 0.999999]) {
      const h = new Harness({ random: () => random });
      await h.connectLast();
      h.socket.drop();
      await h.clock.advance(RECONNECT_JITTER_MAX_MS);
      delays.push(h.sockets[1]!.openedAt);
    }
    expect(delays).toEqual([0, 250, 999]);
  });

  it('is skipped by reconnect() and by the network coming back', async () => {
    const h = new Harness();
    await h.settle();
    h.socket.drop();
    await h.clock.advance(SECOND);
    h.connection.reconnect();
    await h.settle();
    expect(h.server.openedAt).toEqual([0, SECOND]);
    h.socket.drop();
    h.network.set(false);
    await h.clock.advance(SECOND);
    h.network.set(true);
    await h.settle();
    expect(h.server.openedAt).toEqual([0, SECOND, 2 * SECOND]);
  });
});

describe('connect timeout', () => {
  it('gives up after 10 s without connected (ConnectTimeout), then backs off', async () => {
    const h = new Harness();
    await h.settle();
    h.socket.accept();
    await h.clock.advance(CONNECT_TIMEOUT_MS - 1);
    expect(h.socket.closedByClient).toBeNull();
    await h.clock.advance(1);
    expect(h.socket.closedByClient).toEqual({ code: 1000, reason: 'ConnectTimeout' });
    const [error] = h.connectErrors();
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ kind: 'ConnectTimeout' });
    expect(h.metrics.states.get(LAST_CONNECT_ERROR)).toBe('ConnectTimeout');
    await h.clock.advance(5 * SECOND);
    expect(h.server.openedAt).toEqual([0, 15 * SECOND]);
  });

  it('reports the time to connect: the initial value until the first connect, then the measured time', async () => {
    const h = new Harness();
    await h.settle();
    expect(h.metrics.gauges.get(TIME_TO_CONNECT_MS)).toBe(INITIAL_TIME_TO_CONNECT_MS);
    await h.clock.advance(1234);
    h.socket.connect();
    expect(h.metrics.gauges.get(TIME_TO_CONNECT_MS)).toBe(1234);
    expect(h.metrics.states.has(LAST_CONNECT_ERROR)).toBe(false);
  });
});

describe('ping', () => {
  it('pings after 5 s of quiet and disconnects 2 s later without a pong (PingTimeout)', async () => {
    const h = new Harness();
    await h.connectLast();
    const socket = h.socket;
    await h.clock.advance(PING_INTERVAL_MS - 1);
    expect(socket.messages).toEqual([]);
    await h.clock.advance(1);
    expect(socket.messages).toEqual([['ping', {}]]);
    await h.clock.advance(PONG_DEADLINE_MS - 1);
    expect(h.connection.phase).toBe('connected');
    await h.clock.advance(1);
    expect(socket.closedByClient?.reason).toBe('PingTimeout');
    expect(h.connection.phase).toBe('disconnected');
    expect(h.connection.online).toBe(false);
  });

  it('stays connected when the pong comes, and counts any frame as traffic', async () => {
    const h = new Harness();
    await h.connectLast();
    const socket = h.socket;
    await h.clock.advance(3 * SECOND);
    socket.deliver(['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [], requestID: 'r' }]);
    await h.clock.advance(PING_INTERVAL_MS - 1);
    expect(socket.messages).toEqual([]);
    await h.clock.advance(1); // t = 8 s
    expect(socket.messages).toEqual([['ping', {}]]);
    await h.clock.advance(SECOND);
    socket.deliver(['pong', {}]);
    await h.clock.advance(PING_INTERVAL_MS); // t = 14 s
    expect(socket.messages).toEqual([['ping', {}], ['ping', {}]]);
    expect(socket.closedByClient).toBeNull();
  });
});

describe('hidden page', () => {
  it('disconnects after 5 s hidden and reconnects as soon as visible again', async () => {
    const h = new Harness();
    await h.connectLast();
    await h.clock.advance(SECOND);
    h.visibility.set(false);
    h.socket.deliver(['pong', {}]);
    await h.clock.advance(HIDDEN_DISCONNECT_DELAY_MS - 1);
    expect(h.connection.phase).toBe('connected');
    await h.clock.advance(1);
    expect(h.socket.closedByClient?.reason).toBe('Hidden');
    expect(h.connection.online).toBe(false);
    await h.clock.advance(120 * SECOND);
    expect(h.sockets).toHaveLength(1);
    h.visibility.set(true);
    await h.settle();
    expect(h.server.openedAt).toEqual([0, 126 * SECOND]);
  });

  it('stays connected when the page comes back within 5 s', async () => {
    const h = new Harness();
    await h.connectLast();
    h.visibility.set(false);
    await h.clock.advance(4 * SECOND);
    h.visibility.set(true);
    h.socket.deliver(['pong', {}]);
    await h.clock.advance(4 * SECOND);
    expect(h.connection.phase).toBe('connected');
    expect(h.sockets).toHaveLength(1);
  });

  it('waits for the page to be visible when a back-off ends while hidden', async () => {
    const h = new Harness();
    await h.settle();
    h.socket.drop();
    h.visibility.set(false);
    await h.clock.advance(30 * SECOND);
    expect(h.sockets).toHaveLength(1);
    h.visibility.set(true);
    await h.settle();
    expect(h.server.openedAt).toEqual([0, 30 * SECOND]);
  });
});

describe('online flag', () => {
  it('is true after a connect, false after a failure, and onOnlineChange fires only on changes', async () => {
    const h = new Harness();
    expect(h.connection.online).toBe(false);
    await failEveryAttempt(h, 6 * SECOND); // two failed attempts: no change
    expect(h.onlineChanges).toEqual([]);
    await h.clock.advanceTo(15 * SECOND);
    h.socket.connect();
    await h.settle();
    expect(h.connection.online).toBe(true);
    h.socket.drop();
    await h.clock.advance(5 * SECOND);
    h.socket.drop();
    await h.clock.advance(10 * SECOND);
    h.socket.connect();
    await h.settle();
    expect(h.onlineChanges).toEqual([true, false, true]);
  });
});
