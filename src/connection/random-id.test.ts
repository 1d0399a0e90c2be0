import { describe, expect, it } from 'vitest';
import { randomID } from './random-id';

describe('randomID', () => {
  it('is 21 URL-safe characters', () => {
    expect(randomID(Math.random)).toMatch(/^[A-Za-z0-9_-]{21}$/);
  });

  it('uses the whole alphabet and stays in it at the edges of the random range', () => {
    expect(randomID(() => 0, 3)).toBe('AAA');
    expect(randomID(() => 0.999999999, 3)).toBe('---');
  });
});
