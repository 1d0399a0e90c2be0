import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8ByteLength } from './utf8-length';

describe('utf8ByteLength', () => {
  it('counts 1 to 4 bytes per code point', () => {
    expect(utf8ByteLength('')).toBe(0);
    expect(utf8ByteLength('a')).toBe(1);
    expect(utf8ByteLength('é')).toBe(2);
    expect(utf8ByteLength('€')).toBe(3);
    expect(utf8ByteLength('😀')).toBe(4);
    expect(utf8ByteLength('\ud800')).toBe(3);
  });

  it('agrees with TextEncoder on any string', () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(utf8ByteLength(text)).toBe(encoder.encode(text).length);
      }),
    );
  });
});
