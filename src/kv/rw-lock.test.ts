import { describe, expect, it } from 'vitest';
import { RWLock } from './rw-lock';

const ticks = async (n = 5) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

describe('RWLock', () => {
  it('lets readers share, and serves a waiting writer before later readers', async () => {
    const lock = new RWLock();
    const order: string[] = [];
    const r1 = await lock.read();
    const r2 = await lock.read();
    const w = lock.write().then((unlock) => {
      order.push('write');
      return unlock;
    });
    const r3 = lock.read().then((unlock) => {
      order.push('read3');
      return unlock;
    });
    await ticks();
    expect(order).toEqual([]);
    r1();
    await ticks();
    expect(order).toEqual([]);
    r2();
    await ticks();
    expect(order).toEqual(['write']);
    (await w)();
    await ticks();
    expect(order).toEqual(['write', 'read3']);
    (await r3)();
  });

  it('unlocking twice is harmless', async () => {
    const lock = new RWLock();
    const unlock = await lock.write();
    unlock();
    unlock();
    const again = await lock.write();
    again();
    expect(await lock.withRead(() => 7)).toBe(7);
  });
});
