import { describe, expect, it } from 'vitest';
import { NodeLiveness } from './node-liveness';

describe('node liveness from beats', () => {
  it('takes every node for alive until the first answer, then only those that beat; reports a node that stopped', () => {
    const liveness = new NodeLiveness();
    expect(liveness.mayBeAlive('a')).toBe(true);
    expect(liveness.update(new Set(['a', 'b']))).toBe(true);
    expect(liveness.mayBeAlive('c')).toBe(false);
    expect(liveness.update(new Set(['a', 'b', 'c']))).toBe(false);
    expect(liveness.update(new Set(['a', 'c']))).toBe(true);
    expect([liveness.mayBeAlive('a'), liveness.mayBeAlive('b')]).toEqual([true, false]);
  });
});
