import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partition } from './partition';

const MIN = 100;
const MAX = 200;

describe('partition', () => {
  it('keeps a run that fits whole', () => {
    expect(partition([50, 50, 50], 150, MIN, MAX)).toEqual([3]);
    expect(partition([], 0, MIN, MAX)).toEqual([0]);
  });

  it('cuts every entry into exactly one piece within the bounds', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 200 }), (sizes) => {
        const total = sizes.reduce((a, b) => a + b, 0);
        const ends = partition(sizes, total, MIN, MAX);
        expect(ends[ends.length - 1]).toBe(sizes.length);
        let start = 0;
        for (const end of ends) {
          expect(end).toBeGreaterThan(start === 0 && sizes.length === 0 ? -1 : start);
          const piece = sizes.slice(start, end).reduce((a, b) => a + b, 0);
          if (ends.length > 1) {
            // Within the bounds, give or take one entry.
            expect(piece).toBeGreaterThanOrEqual(MIN - 60);
            expect(piece).toBeLessThanOrEqual(MAX + 60);
          }
          start = end;
        }
      }),
    );
  });
});
