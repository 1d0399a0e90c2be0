import { describe, expect, it } from 'vitest';
import { parseNodeCpu } from './server-cluster';

describe('parseNodeCpu (BENCH_NODE_CPU)', () => {
  it('is the cap rule when unset or auto, uncapped only when off or 0, else CPUs per node', () => {
    expect(parseNodeCpu(undefined)).toBe('auto');
    expect(parseNodeCpu('')).toBe('auto');
    expect(parseNodeCpu('auto')).toBe('auto');
    expect(parseNodeCpu('off')).toBe('off');
    expect(parseNodeCpu('0')).toBe('off');
    expect(parseNodeCpu('0.3')).toBe(0.3);
  });
  it('refuses anything else instead of running uncapped by mistake', () => {
    expect(() => parseNodeCpu('30%')).toThrow(/BENCH_NODE_CPU/);
    expect(() => parseNodeCpu('-1')).toThrow(/BENCH_NODE_CPU/);
  });
});
