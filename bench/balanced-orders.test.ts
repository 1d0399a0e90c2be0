import { describe, expect, it } from 'vitest';
import { balancedOrders } from './balanced-orders';

describe('balancedOrders', () => {
  it.each([1, 2, 3, 4, 5, 6, 7])('for %i things: each order holds each once, each is in each place and follows each other one equally often', (n) => {
    const orders = balancedOrders(n);
    expect(orders).toHaveLength(n % 2 === 0 ? n : 2 * n);
    for (const order of orders) expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
    const inPlace = new Map<string, number>();
    const follows = new Map<string, number>();
    for (const order of orders) {
      order.forEach((x, place) => inPlace.set(`${x}@${place}`, (inPlace.get(`${x}@${place}`) ?? 0) + 1));
      for (let i = 1; i < n; i++) follows.set(`${order[i - 1]}→${order[i]}`, (follows.get(`${order[i - 1]}→${order[i]}`) ?? 0) + 1);
    }
    expect(new Set(inPlace.values()).size).toBe(1);
    expect(inPlace.size).toBe(n * n);
    if (n > 1) {
      expect(follows.size).toBe(n * (n - 1));
      expect(new Set(follows.values()).size).toBe(1);
    }
  });

  it('refuses a count that is not a positive whole number', () => {
    expect(() => balancedOrders(0)).toThrow(RangeError);
    expect(() => balancedOrders(2.5)).toThrow(RangeError);
  });
});
