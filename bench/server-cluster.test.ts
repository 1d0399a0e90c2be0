import { describe, expect, it } from 'vitest';
import type { LoadFigures } from './load-figures';
import { clusterChecks, parseNodeCpu, parseNodeCpuPeriodMs, type ClusterLoad, type Measured } from './server-cluster';

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

describe('parseNodeCpuPeriodMs (BENCH_NODE_CPU_PERIOD_MS)', () => {
  it("is the kernel's default when unset, else milliseconds from 1 to 1000", () => {
    expect(parseNodeCpuPeriodMs(undefined)).toBeUndefined();
    expect(parseNodeCpuPeriodMs('')).toBeUndefined();
    expect(parseNodeCpuPeriodMs('1')).toBe(1);
    expect(parseNodeCpuPeriodMs('10')).toBe(10);
    expect(parseNodeCpuPeriodMs('1000')).toBe(1000);
  });
  it('refuses what the kernel would refuse or what is no number, naming the variable', () => {
    for (const text of ['0', '0.5', '1001', '10ms', 'abc', '-5']) expect(() => parseNodeCpuPeriodMs(text)).toThrow(/BENCH_NODE_CPU_PERIOD_MS must be a number of milliseconds from 1 to 1000/);
  });
});

/** A load's figures: `nodes` in % of one core, the rest of the CPU as given. */
const figures = (mutations: number, nodes: number[], postgres: number, machine: number, bench = 30): LoadFigures => {
  const totalCpu = nodes.reduce((a, b) => a + b, 0) + postgres + bench;
  return { mutations, batches: mutations / 9, commits: mutations / 9, cpu: '', nodeCpu: nodes, postgresCpu: postgres, benchCpu: bench, idleCpu: 0, totalCpu, machineCpu: machine };
};
const row = (round: number, capped: boolean, load: ClusterLoad, f: LoadFigures, throttled: number[] = [], groupCpu: (number | undefined)[] = []): Measured => ({ round, capped, load, f, throttled, groupCpu });
const STATE = { where: 'cgroup v1 at /sys/fs/cgroup/cpu/roomsync-bench-1', cap: 0.2, rule: 'cap set by BENCH_NODE_CPU=0.2', periodMs: undefined };

describe('clusterChecks', () => {
  const uncapped = [row(1, false, 'one', figures(2000, [80], 80, 195)), row(1, false, 'rooms', figures(2200, [30, 30, 30], 85, 196))];

  it('quotes the uncapped ratio with each process\'s CPU and says when the cores bound it', () => {
    const lines = clusterChecks(uncapped, { unavailable: 'BENCH_NODE_CPU=off' }, 2);
    expect(lines).toContainEqual(expect.stringMatching(/^uncapped 3 nodes, rooms spread: median 1\.10× \(rounds 1\.10\) of 1 node; nodes 30\/30\/30%, PostgreSQL 85%, bench 30%; .*the cores, not the code, bound it\.$/));
    expect(lines.at(-1)).toBe('capped rows (each node on its own CPU budget): unavailable: BENCH_NODE_CPU=off');
  });

  it('says the capped nodes bound the figure when every node is at its cap and the machine has room', () => {
    const measured = [...uncapped, row(1, true, 'one', figures(800, [19.5], 30, 100), [0.9]), row(1, true, 'rooms', figures(2500, [19, 19.2, 19.8], 90, 150), [0.9, 0.9, 0.9])];
    const lines = clusterChecks(measured, STATE, 2);
    expect(lines).toContainEqual(expect.stringMatching(/^capped 1 node: the node used 19\.5% of its 20% \(median\), throttled in 90% of its periods; .*its CPU budget bounds the figure\.$/));
    expect(lines).toContainEqual(expect.stringMatching(/^capped 3 nodes, rooms spread: median 3\.13× \(rounds 3\.13\) of 1 node; nodes 19\/19\/20% of 20% each, PostgreSQL 90%, bench 30%, machine 150% of 200% \(below saturation\): every node at its cap/));
    expect(lines.some((l) => l.startsWith('WARNING'))).toBe(false);
  });

  it('warns when a capped node is under its cap, or the machine is saturated', () => {
    const measured = [...uncapped, row(1, true, 'one', figures(800, [12], 30, 100), [0.1]), row(1, true, 'rooms', figures(2500, [19, 19, 19], 90, 190), [0.9, 0.9, 0.9])];
    const lines = clusterChecks(measured, STATE, 2);
    expect(lines).toContainEqual(expect.stringMatching(/^WARNING: capped 1 node: the node used 12\.0% of its 20% \(under 90%\)/));
    expect(lines).toContainEqual(expect.stringMatching(/^WARNING: round 1: 0\.2 CPU per node, 3 nodes, rooms spread: the machine was at 190% of 200%: cores-bound again/));
    expect(lines).toContainEqual(expect.stringMatching(/^capped 3 nodes, rooms spread: .*\(saturated\): WARNING: the machine is saturated/));
  });

  it("checks a node against its cap by its group's own counter when there is one", () => {
    // /proc says 19.5% (at the cap); the group's counter says 15%: the counter decides.
    const measured = [...uncapped, row(1, true, 'one', figures(800, [19.5], 30, 100), [0.5], [15])];
    expect(clusterChecks(measured, STATE, 2)).toContainEqual(expect.stringMatching(/^WARNING: capped 1 node: the node used 15\.0% of its 20%/));
  });

  it('says plainly that no round ran capped when the rule gave no cap', () => {
    const lines = clusterChecks(uncapped, { ...STATE, cap: undefined, rule: 'per-node cap = … → none (the machine is too small)' }, 2);
    expect(lines.at(-2)).toMatch(/none \(the machine is too small\)$/);
    expect(lines.at(-1)).toBe('no capped rows: the cap rule gave no cap in round 1, so no round ran capped.');
  });
});
