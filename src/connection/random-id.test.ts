import { describe, expect, it } from 'vitest';
import { randomID, randomUUID } from './random-id';

describe('randomID', () => {
  it('is 21 URL-safe characters', () => {
    expect(randomID(Math.random)).toMatch(/^[A-Za-z0-9_-]{21}$/);
  });

  it('uses the whole alphabet and stays in it at the edges of the random range', () => {
    expect(randomID(() => 0, 3)).toBe('AAA');
    expect(randomID(() => 0.999999999, 3)).toBe('---');
  });
});

describe('randomUUID', () => {
  it('is a version 4 UUID', () => {
    expect(randomUUID(Math.random)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
