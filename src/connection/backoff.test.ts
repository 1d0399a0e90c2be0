import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECONNECT_BACKOFF_INITIAL_MS, RECONNECT_BACKOFF_MAX_MS } from '../../protocol/constants';
import { backoffDelayMs } from './backoff';

describe('backoffDelayMs', () => {
  it('is 0, then 5 s doubled per error, capped at 60 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 100].map(backoffDelayMs)).toEqual([0, 5000, 10000, 20000, 40000, 60000, 60000, 60000, 60000]);
  });

  it('never decreases and stays within bounds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (n) => {
        const delay = backoffDelayMs(n);
        expect(delay).toBeGreaterThanOrEqual(RECONNECT_BACKOFF_INITIAL_MS);
        expect(delay).toBeLessThanOrEqual(RECONNECT_BACKOFF_MAX_MS);
        expect(backoffDelayMs(n + 1)).toBeGreaterThanOrEqual(delay);
      }),
    );
  });
});
