import { describe, expect, it } from 'vitest';
import { cpuPressureSource, hasSpareCore, MAX_CPU_PRESSURE_TO_TURN, parseCpuPressure, parseCpuQuota } from './spare-cpu';

describe('spare cores', () => {
  it('reads the 10 s CPU pressure of /proc/pressure/cpu', () => {
    const text = 'some avg10=40.08 avg60=47.42 avg300=48.23 total=18536295683\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n';
    expect(parseCpuPressure(text)).toBe(40.08);
    expect(parseCpuPressure('some avg10=0.00 avg60=1.00 avg300=2.00 total=1\n')).toBe(0);
    expect(parseCpuPressure('')).toBeUndefined();
    expect(parseCpuPressure('full avg10=3.00 avg60=0.00 avg300=0.00 total=0\n')).toBeUndefined();
  });

  it('has one while threads rarely wait for a CPU, by the load average where there is no pressure figure', () => {
    expect(hasSpareCore(0, 9, 2)).toBe(true);
    expect(hasSpareCore(MAX_CPU_PRESSURE_TO_TURN - 0.01, 9, 2)).toBe(true);
    expect(hasSpareCore(MAX_CPU_PRESSURE_TO_TURN, 0, 2)).toBe(false);
    expect(hasSpareCore(undefined, 1.2, 2)).toBe(true);
    expect(hasSpareCore(undefined, 1.6, 2)).toBe(false);
  });
});

describe('where the CPU pressure is read', () => {
  const files = (entries: Record<string, string>) => (path: string) => entries[path];

  it("is the machine's where the process's cgroup has no CPU quota (v2 'max', v1 -1)", () => {
    expect(cpuPressureSource(files({ '/proc/self/cgroup': '0::/app\n', '/sys/fs/cgroup/app/cpu.max': 'max 100000\n' }))).toBe('/proc/pressure/cpu');
    expect(cpuPressureSource(files({ '/proc/self/cgroup': '1:cpu:/\n0::/\n', '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n' }))).toBe('/proc/pressure/cpu');
    expect(cpuPressureSource(files({}))).toBe('/proc/pressure/cpu');
  });

  it("is the cgroup's own under a cgroup v2 quota, found at its path or at the mount's root", () => {
    const atPath = { '/proc/self/cgroup': '0::/app\n', '/sys/fs/cgroup/app/cpu.max': '100000 100000\n', '/sys/fs/cgroup/app/cpu.pressure': 'some avg10=0.00\n' };
    expect(cpuPressureSource(files(atPath))).toBe('/sys/fs/cgroup/app/cpu.pressure');
    const atRoot = { '/proc/self/cgroup': '0::/docker/abc\n', '/sys/fs/cgroup/cpu.max': '50000 100000\n', '/sys/fs/cgroup/cpu.pressure': 'some avg10=0.00\n' };
    expect(cpuPressureSource(files(atRoot))).toBe('/sys/fs/cgroup/cpu.pressure');
  });

  it('is nowhere (never turn) under a quota with no pressure of its own: cgroup v1, or v2 without cpu.pressure', () => {
    const v1 = { '/proc/self/cgroup': '4:cpu,cpuacct:/docker/abc\n', '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '100000\n', '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n' };
    expect(cpuPressureSource(files(v1))).toBeNull();
    expect(cpuPressureSource(files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': '100000 100000\n' }))).toBeNull();
  });

  it('reads quotas in cores', () => {
    expect([parseCpuQuota('150000 100000'), parseCpuQuota('max 100000'), parseCpuQuota('-1', '100000'), parseCpuQuota('50000', '100000')]).toEqual([1.5, undefined, undefined, 0.5]);
  });
});
