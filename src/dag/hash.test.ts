import { describe, expect, it } from 'vitest';
import { newHashFactory } from './hash';

describe('newHashFactory', () => {
  it('makes unique ids from a random prefix and a counter', () => {
    const factory = newHashFactory(() => 0.5);
    const hashes = Array.from({ length: 10_000 }, () => factory.next());
    expect(new Set(hashes).size).toBe(10_000);
    expect(hashes[0]).toBe('gggggggggg0');
    expect(hashes.every((h) => /^[0-9a-v]+$/.test(h))).toBe(true);
  });

  it('two factories with different random draws do not collide', () => {
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const a = newHashFactory(random);
    const b = newHashFactory(random);
    const fromA = new Set(Array.from({ length: 1000 }, () => a.next()));
    for (let i = 0; i < 1000; i++) expect(fromA.has(b.next())).toBe(false);
  });
});
