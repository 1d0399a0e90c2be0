import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareUTF8 } from './compare';

const utf8Order = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));

/** Characters from every UTF-8 length class, including both sides of the UTF-16 ordering trap. */
const char = fc.constantFrom('', 'a', 'z', '~', '\u007f', 'é', 'ÿ', '中', '\ud7ff', '\ue000', '\uf8ff', '\uffff', 'ﬀ', '😀', '𝄞', '\u{10ffff}', '\u{10000}');
const key = fc.array(char, { maxLength: 6 }).map((cs) => cs.join(''));

describe('compareUTF8', () => {
  it('orders U+E000–U+FFFF before astral characters, unlike JS <', () => {
    expect('\uffff' < '😀').toBe(false);
    expect(compareUTF8('\uffff', '😀')).toBeLessThan(0);
    expect(compareUTF8('\ue000', '\u{10000}')).toBeLessThan(0);
    expect(compareUTF8('😀', '\ue000')).toBeGreaterThan(0);
    expect(compareUTF8('a', 'ab')).toBeLessThan(0);
    expect(compareUTF8('', '')).toBe(0);
    expect(compareUTF8('中', '中')).toBe(0);
  });

  it('agrees with comparing UTF-8 bytes', () => {
    fc.assert(
      fc.property(key, key, (a, b) => {
        expect(Math.sign(compareUTF8(a, b))).toBe(utf8Order(a, b));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(Math.sign(compareUTF8(a, b))).toBe(utf8Order(a, b));
      }),
      { numRuns: 2000 },
    );
  });
});
