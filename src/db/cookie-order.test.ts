import { describe, expect, it } from 'vitest';
import { compareCookies } from './cookie-order';

describe('compareCookies', () => {
  it('orders null before every state and integers by value', () => {
    expect(compareCookies(null, null)).toBe(0);
    expect(compareCookies(null, 0)).toBeLessThan(0);
    expect(compareCookies(3, null)).toBeGreaterThan(0);
    expect(compareCookies(2, 10)).toBeLessThan(0);
    expect(compareCookies(10, 10)).toBe(0);
  });

  it('orders strings and { order } cookies of other servers', () => {
    expect(compareCookies('a', 'b')).toBeLessThan(0);
    expect(compareCookies({ order: 5 }, { order: 4 })).toBeGreaterThan(0);
    expect(compareCookies({ order: 'x1' }, { order: 'x1' })).toBe(0);
  });
});
