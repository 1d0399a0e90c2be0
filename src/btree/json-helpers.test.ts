import { describe, expect, it } from 'vitest';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { estimateJSONSize } from '../dag/json-size';
import { jsonEqual } from './json-equal';

describe('estimateJSONSize', () => {
  it('is close to the JSON length for ASCII data', () => {
    const values: ReadonlyJSONValue[] = ['abc', 12.5, true, null, [1, 'two', [3]], { a: 1, bb: { c: 'd' } }, { s: 'x'.repeat(1000) }];
    for (const v of values) {
      const real = JSON.stringify(v).length;
      const est = estimateJSONSize(v);
      expect(est).toBeGreaterThanOrEqual(real * 0.5);
      expect(est).toBeLessThanOrEqual(real * 2 + 8);
    }
  });
});

describe('jsonEqual', () => {
  it('compares deeply, ignoring object key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
  });
});
