import { describe, expect, it } from 'vitest';
import { CheckFailure } from './check-failure';
import { withDeadline } from './deadline';
import { FakeClock } from './fake-clock';

describe('withDeadline', () => {
  it('fails with a CheckFailure naming what it waited for once the deadline passes', async () => {
    const clock = new FakeClock();
    const waiting = withDeadline(new Promise(() => {}), 5000, clock, 'the room');
    clock.advance(4999);
    clock.advance(1);
    await expect(waiting).rejects.toThrow(new CheckFailure('timed out after 5000 ms waiting for the room'));
  });

  it('settles like the promise and clears its timer', async () => {
    const clock = new FakeClock();
    await expect(withDeadline(Promise.resolve(7), 5000, clock, 'x')).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('no')), 5000, clock, 'x')).rejects.toThrow('no');
    expect(clock.pendingTimers).toBe(0);
  });
});
