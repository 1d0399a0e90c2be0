import { describe, expect, it } from 'vitest';
import { cgroupDir, cgroupPath, cpuHierarchies, parseThrottling, parseUsageSeconds, processTree, quotaPeriod, quotaWrites } from './cgroup-files';

const MOUNTINFO = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct',
  '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
  '50 31 0:40 /docker/abc /mnt/cpu\\040set rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct',
].join('\n');

describe('cpuHierarchies', () => {
  it('finds the v2 mounts and the v1 mounts of the cpu controller, not cpuacct alone', () => {
    expect(cpuHierarchies(MOUNTINFO)).toEqual([
      { version: 1, mountPoint: '/sys/fs/cgroup/cpu', root: '/' },
      { version: 2, mountPoint: '/sys/fs/cgroup/unified', root: '/' },
      { version: 1, mountPoint: '/mnt/cpu set', root: '/docker/abc' },
    ]);
  });
});

describe('cgroupPath', () => {
  const proc = ['9:name=systemd:/', '4:memory:/api/1', '2:cpu,cpuacct:/roomsync-bench-7/node-1', '0::/user.slice/a:b'].join('\n');
  it('reads the cpu controller line for v1 and the 0:: line for v2 (colons in the path kept)', () => {
    expect(cgroupPath(proc, 1)).toBe('/roomsync-bench-7/node-1');
    expect(cgroupPath(proc, 2)).toBe('/user.slice/a:b');
  });
  it('is undefined when the hierarchy is not listed', () => {
    expect(cgroupPath('4:memory:/x', 1)).toBeUndefined();
    expect(cgroupPath('4:memory:/x', 2)).toBeUndefined();
  });
});

describe('cgroupDir', () => {
  it('places a path under the mount, minus the mounted sub-tree', () => {
    expect(cgroupDir({ version: 1, mountPoint: '/sys/fs/cgroup/cpu', root: '/' }, '/roomsync-bench-7')).toBe('/sys/fs/cgroup/cpu/roomsync-bench-7');
    expect(cgroupDir({ version: 1, mountPoint: '/sys/fs/cgroup/cpu', root: '/' }, '/')).toBe('/sys/fs/cgroup/cpu');
    const sub = { version: 1 as const, mountPoint: '/mnt/c', root: '/docker/abc' };
    expect(cgroupDir(sub, '/docker/abc/x')).toBe('/mnt/c/x');
    expect(cgroupDir(sub, '/docker/abc')).toBe('/mnt/c');
  });
  it('is undefined for a path outside the mounted sub-tree (a sibling with the same prefix too)', () => {
    const sub = { version: 1 as const, mountPoint: '/mnt/c', root: '/docker/abc' };
    expect(cgroupDir(sub, '/docker/abcd/x')).toBeUndefined();
    expect(cgroupDir(sub, '/other')).toBeUndefined();
  });
});

describe('quotas', () => {
  it('writes cfs_quota_us for v1 and cpu.max for v2, no quota as -1 and max', () => {
    expect(quotaWrites(1, 0.25, 100_000)).toEqual([
      ['cpu.cfs_period_us', '100000'],
      ['cpu.cfs_quota_us', '25000'],
    ]);
    expect(quotaWrites(1, undefined, 100_000)).toEqual([
      ['cpu.cfs_period_us', '100000'],
      ['cpu.cfs_quota_us', '-1'],
    ]);
    expect(quotaWrites(2, 0.3, 10_000)).toEqual([['cpu.max', '3000 10000']]);
    expect(quotaWrites(2, undefined, 50_000)).toEqual([['cpu.max', 'max 50000']]);
  });
  it('never goes under the kernel minimum of 1 ms', () => {
    expect(quotaWrites(1, 0.001, 100_000)[1]).toEqual(['cpu.cfs_quota_us', '1000']);
  });
  it('reads the period of either version', () => {
    expect(quotaPeriod(1, '100000\n')).toBe(100_000);
    expect(quotaPeriod(2, 'max 100000\n')).toBe(100_000);
  });
  it('reads the throttling counters of either cpu.stat', () => {
    expect(parseThrottling('nr_periods 60\nnr_throttled 59\nthrottled_time 9949466045\n')).toEqual({ periods: 60, throttled: 59 });
    expect(parseThrottling('usage_usec 5\nnr_periods 3\nnr_throttled 1\nthrottled_usec 9\n')).toEqual({ periods: 3, throttled: 1 });
  });
});

describe('parseUsageSeconds', () => {
  it('reads usage_usec of a v2 cpu.stat, and nothing from a v1 one', () => {
    expect(parseUsageSeconds('usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\nnr_periods 3\n')).toBe(2.5);
    expect(parseUsageSeconds('nr_periods 3\nnr_throttled 1\nthrottled_time 5\n')).toBeUndefined();
  });
});

describe('processTree', () => {
  // 10 (threads 10, 11) → 20 (from thread 11) → 30; 10 → 21 (ended: no task directory).
  const tasks: Record<string, string[]> = { '/proc/10/task': ['10', '11'], '/proc/20/task': ['20'], '/proc/30/task': ['30'] };
  const files: Record<string, string> = { '/proc/10/task/10/children': '21 ', '/proc/10/task/11/children': '20 ', '/proc/20/task/20/children': '30 ', '/proc/30/task/30/children': '' };
  const list = (dir: string) => tasks[dir] ?? (() => { throw new Error('ENOENT'); })();
  const read = (path: string) => files[path] ?? (() => { throw new Error('ENOENT'); })();
  it('lists a process and its descendants from every thread\'s children, parents first, leaving out those that ended', () => {
    expect(processTree(10, read, list)).toEqual([10, 20, 30]);
  });
  it('is empty for a process that ended', () => {
    expect(processTree(99, read, list)).toEqual([]);
  });
});
