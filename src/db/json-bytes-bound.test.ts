import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonBytesAtMost } from './json-bytes-bound';

const utf8 = new TextEncoder();

describe('jsonBytesAtMost', () => {
  it('is never below the UTF-8 bytes of the JSON text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonBytesAtMost(value)).toBeGreaterThanOrEqual(utf8.encode(JSON.stringify(value)).length);
      }),
      { numRuns: 500 },
    );
  });

  it('counts escaped control characters, astral characters and extreme numbers at their widest', () => {
    for (const value of ['\u0000\u001f"\\', '😀\ud800', -1.7976931348623157e308, -2.2250738585072014e-308, -0.0000010000275196548161, { 'k\n': [null, true, false] }]) {
      expect(jsonBytesAtMost(value)).toBeGreaterThanOrEqual(utf8.encode(JSON.stringify(value)).length);
    }
  });

  it('is Infinity for what is not JSON', () => {
    expect(jsonBytesAtMost(() => 1)).toBe(Infinity);
    expect(jsonBytesAtMost({ d: new Date(0) })).toBe(Infinity);
    expect(jsonBytesAtMost(10n)).toBe(Infinity);
  });
});
