import { describe, expect, it } from 'vitest';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { estimateJSONSize } from './json-size';

/** The estimate as defined (json-size's comment), one call per value. */
function defined(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'number') return 8;
  if (typeof value === 'boolean' || value === null) return 4;
  if (Array.isArray(value)) return value.reduce((size: number, v) => size + defined(v) + 1, 2);
  if (typeof value === 'object') {
    let size = 2;
    for (const [key, v] of Object.entries(value)) if (v !== undefined) size += key.length + 3 + defined(v) + 1;
    return size;
  }
  return 0;
}

describe('estimateJSONSize', () => {
  it('counts as defined: strings, numbers, null and booleans in place or alone, nested arrays and objects, undefined properties and elements', () => {
    const internalNode = [1, Array.from({ length: 300 }, (_, i) => [`k/${i}`, `h${i.toString(32)}`])];
    const leaf = [0, Array.from({ length: 12 }, (_, i) => [`f/${i}`, { i, text: 'x'.repeat(1000), ok: i % 2 === 0, none: null, list: [i, 'a', [true]] }])];
    const values: unknown[] = ['', 'abc', 'é', 0, 12.5, true, false, null, [], {}, [1, 'two', [3], null, false, { a: 'b' }], { a: 1, bb: { c: 'd' }, e: [null], u: undefined }, [undefined, 1], internalNode, leaf];
    for (const v of values) expect(estimateJSONSize(v as ReadonlyJSONValue)).toBe(defined(v));
    expect(estimateJSONSize(undefined as unknown as ReadonlyJSONValue)).toBe(0);
  });
});
