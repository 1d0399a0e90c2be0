import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../logger';
import { manualTimers } from '../../test-support/manual-timers';
import { listenRetryDelayMs, PgListener, type ListenConnection } from './pg-listener';

/** Fires the next timer and lets the reconnect's promises settle. */
async function fire(clock: ReturnType<typeof manualTimers>): Promise<void> {
  clock.fireNext();
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

class FakeConnection extends EventEmitter implements ListenConnection {
  constructor(
    private readonly up: () => boolean,
    readonly queries: string[],
  ) {
    super();
  }
  async connect() {
    if (!this.up()) throw new Error('connect ECONNREFUSED');
  }
  async query(text: string) {
    this.queries.push(text);
  }
  async end() {}
}

describe('PgListener', () => {
  it('reconnects at 100 ms doubling to 5 s after the database went away, LISTENs again and reports it', async () => {
    const clock = manualTimers();
    let up = true;
    const connections: FakeConnection[] = [];
    const queries: string[] = [];
    let reconnected = 0;
    const listener = new PgListener({
      newConnection: () => {
        const c = new FakeConnection(() => up, queries);
        connections.push(c);
        return c;
      },
      channel: 'roomsync',
      onPayload: () => {},
      onReconnected: () => reconnected++,
      timers: clock.timers,
      logger: silentLogger,
    });
    await listener.start();
    expect(queries).toEqual(['LISTEN roomsync']);
    up = false;
    connections[0]!.emit('error', new Error('terminating connection due to administrator command'));
    const attempts: number[] = [];
    for (let i = 0; i < 8; i++) {
      await fire(clock);
      attempts.push(clock.now());
    }
    expect(attempts).toEqual([100, 300, 700, 1500, 3100, 6300, 11300, 16300]);
    expect(reconnected).toBe(0);
    up = true;
    await fire(clock);
    expect(reconnected).toBe(1);
    expect(queries).toEqual(['LISTEN roomsync', 'LISTEN roomsync']);
    // The back-off starts again from 100 ms at the next loss.
    connections.at(-1)!.emit('end');
    await fire(clock);
    expect(clock.now()).toBe(16300 + 5000 + 100);
    expect(reconnected).toBe(2);
    await listener.stop();
  });

  it('waits 100 ms doubling up to 5 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(listenRetryDelayMs)).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000]);
  });
});
