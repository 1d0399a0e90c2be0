import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareKeys, lowerBound } from './key-order';

const sign = (n: number) => Math.sign(n);

describe('compareKeys', () => {
  it('orders like the UTF-8 bytes of the keys', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(sign(compareKeys(a, b))).toBe(sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
      { numRuns: 500 },
    );
  });

  it('puts astral characters after U+E000–U+FFFF, unlike a JS string compare', () => {
    const astral = '\u{1F600}';
    const privateUse = '\uE000';
    expect(astral < privateUse).toBe(true);
    expect(compareKeys(astral, privateUse)).toBeGreaterThan(0);
    expect(compareKeys('a', 'ab')).toBeLessThan(0);
    expect(compareKeys('ab', 'ab')).toBe(0);
  });
});

describe('lowerBound', () => {
  it('finds the insertion point', () => {
    const sorted = ['a', 'b', 'd'];
    expect(lowerBound(sorted, 'b')).toBe(1);
    expect(lowerBound(sorted, 'b', true)).toBe(2);
    expect(lowerBound(sorted, 'c')).toBe(2);
    expect(lowerBound(sorted, 'z')).toBe(3);
    expect(lowerBound([], 'a')).toBe(0);
  });
});
