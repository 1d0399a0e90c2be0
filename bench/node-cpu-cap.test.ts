import { describe, expect, it } from 'vitest';
import { atCap, coresSaturated, nodeCapRule } from './node-cpu-cap';

describe('nodeCapRule', () => {
  it('takes the largest step at which 3 nodes and what they drive fit in 80% of the cores', () => {
    // 1 node 79%, rest 107% on 2 cores: 160 × 79 / (3 × 186) = 22.65% of a core → 0.20 CPU.
    const cap = nodeCapRule({ node: 79, rest: 107 }, 2, 3);
    expect(cap.cpus).toBe(0.2);
    expect(cap.rule).toContain('0.227 → 0.2 CPU');
    // At 0.20 the planned run fits; one step more would not.
    const need = (c: number) => (3 * c * 100 * (79 + 107)) / 79;
    expect(need(0.2)).toBeLessThanOrEqual(160);
    expect(need(0.25)).toBeGreaterThan(160);
  });

  it('keeps an exact multiple of the step', () => {
    // 160 × 60 / (2 × 160) = 30% exactly.
    expect(nodeCapRule({ node: 60, rest: 100 }, 2, 2).cpus).toBe(0.3);
  });

  it('has no cap when even one step does not fit', () => {
    const cap = nodeCapRule({ node: 5, rest: 195 }, 1, 3);
    expect(cap.cpus).toBeUndefined();
    expect(cap.rule).toContain('too small');
  });

  it('grows with the cores', () => {
    expect(nodeCapRule({ node: 79, rest: 107 }, 8, 3).cpus).toBe(0.9);
  });
});

describe('limits', () => {
  it('counts a process at 90% of its budget as at its cap', () => {
    expect(atCap(18, 0.2)).toBe(true);
    expect(atCap(17.9, 0.2)).toBe(false);
  });

  it('counts the machine at 90% of its cores as saturated', () => {
    expect(coresSaturated(180, 2)).toBe(true);
    expect(coresSaturated(170, 2)).toBe(false);
  });
});
