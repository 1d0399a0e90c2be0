import { describe, expect, it } from 'vitest';
import type { Timers } from './clock';
import { TokenBucket } from './token-bucket';
import { uniqueID } from './test-support/test-client';
import { startTestServer } from './test-support/test-server';

describe('rate limits', () => {
  it('TokenBucket: a burst, then the sustained rate', () => {
    let now = 0;
    const bucket = new TokenBucket(10, 20, { now: () => now });
    expect(bucket.take(20)).toBe(0);
    expect(bucket.take(5)).toBe(500);
    now += 1000;
    expect(bucket.take(5)).toBe(0);
  });

  it('a connection over its mutations/s is not read until it is back within its limit (back-pressure, not an error)', async () => {
    let now = 1_000_000;
    const resumes: (() => void)[] = [];
    const timers: Timers = {
      // Only the resume of the paused socket (15 mutations against a burst of 10 at 10/s: 500 ms).
      setTimeout: (cb, ms) => (ms === 500 ? resumes.push(cb) : setTimeout(cb, ms)),
      clearTimeout: (h) => (typeof h === 'number' ? undefined : clearTimeout(h as NodeJS.Timeout)),
    };
    const t = await startTestServer({ clock: { now: () => now }, timers, mutationsPerSecond: 10, mutationBurst: 10 });
    const c = t.connect({ roomID: uniqueID('room') });
    await c.ready();
    c.push(Array.from({ length: 15 }, (_, i) => c.mutation('put', { key: `k${i}`, value: i }, i + 1)));
    await c.acked(15);
    c.push([c.mutation('put', { key: 'late', value: 1 }, 16)]);
    await new Promise((r) => setTimeout(r, 100));
    expect(c.lmid).toBe(15);
    expect(resumes).toHaveLength(1);
    const { json } = await t.admin('GET', '/stats');
    expect((json.counters as { throttled: number }).throttled).toBe(1);
    now += 1000;
    resumes[0]!();
    await c.acked(16);
    expect(c.errors).toEqual([]);
    await t.close();
  });
});
