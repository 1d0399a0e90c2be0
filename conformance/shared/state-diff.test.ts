import { describe, expect, it } from 'vitest';
import { describeStateDiff, statesEqual } from './state-diff';

describe('describeStateDiff', () => {
  it('is empty for equal states, whatever the key order', () => {
    expect(describeStateDiff({ a: 1, b: { x: [1] } }, { b: { x: [1] }, a: 1 })).toBe('');
    expect(statesEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
  });

  it('names missing, unexpected and different keys', () => {
    expect(describeStateDiff({ a: 1, b: 2 }, { b: 3, c: 4 })).toBe('missing "a" (expected 1); "b" is 3, expected 2; unexpected "c" = 4');
  });

  it('shortens long differences', () => {
    const actual = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, i]));
    expect(describeStateDiff({}, actual)).toMatch(/… and 4 more$/);
  });
});
