import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RangeIndex, rangeHas, type KeyRange } from './range-index';
import { utf8Compare } from './test-compare';

const key = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'é', '\u{1F600}'), maxLength: 4 });

describe('RangeIndex', () => {
  it('finds exactly the ranges a naive check finds', () => {
    const range = fc
      .tuple(key, key, fc.option(key, { nil: undefined }))
      .map(([prefix, rest, upper]) => ({ prefix, lo: prefix + rest, upper: upper === undefined ? undefined : prefix + upper }));
    fc.assert(
      fc.property(fc.array(range, { maxLength: 20 }), fc.array(key, { maxLength: 20 }), (rs, keys) => {
        const ranges: KeyRange<number>[] = rs.map((r, i) => ({ ...r, item: i }));
        const index = new RangeIndex(ranges, utf8Compare);
        for (const k of keys) {
          const found: number[] = [];
          index.forEachContaining(k, (i) => found.push(i));
          const naive = ranges.filter((r) => rangeHas(r, k, utf8Compare)).map((r) => r.item);
          expect(found.sort((a, b) => a - b)).toEqual(naive);
        }
      }),
      { numRuns: 300 },
    );
  });
});
