import { describe, expect, it } from 'vitest';
import { jsonTextDeeperThan } from './json-text-depth';

describe('jsonTextDeeperThan', () => {
  it('counts nesting outside strings only', () => {
    expect(jsonTextDeeperThan('['.repeat(3) + ']'.repeat(3), 3)).toBe(false);
    expect(jsonTextDeeperThan('['.repeat(4) + ']'.repeat(4), 3)).toBe(true);
    expect(jsonTextDeeperThan(`{"a":[{"b":"[[[[[[[[\\"[[["}]}`, 3)).toBe(false);
    expect(jsonTextDeeperThan(`[[[["x"]]],[[[["y"]]]]]`, 4)).toBe(true);
    expect(jsonTextDeeperThan('['.repeat(100_000) + ']'.repeat(100_000), 100)).toBe(true);
  });
});
