/**
 * What the bench reads and writes in cgroup files, as pure functions of their
 * text: the mounts that can cap CPU (v1 cpu controller, v2), a process's
 * group, where a group's directory is, and the quota and throttling files.
 */
import { join } from 'node:path';

export interface CpuHierarchy {
  readonly version: 1 | 2;
  readonly mountPoint: string;
  /** The hierarchy's path mounted there (`/` unless only a sub-tree is visible, as in a container). */
  readonly root: string;
}

/** Paths in /proc/self/mountinfo escape spaces and the like as octal (`\040`). */
const unescapeMountPath = (path: string): string => path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** The cgroup mounts that may carry a CPU quota, from /proc/self/mountinfo: every v2 mount and the v1 mounts of the cpu controller. */
export function cpuHierarchies(mountinfo: string): CpuHierarchy[] {
  const found: CpuHierarchy[] = [];
  for (const line of mountinfo.split('\n')) {
    const [mount, filesystem] = line.split(' - ');
    if (filesystem === undefined) continue;
    const fields = mount!.split(' ');
    const [type, , superOptions = ''] = filesystem.split(' ');
    const at = { mountPoint: unescapeMountPath(fields[4]!), root: unescapeMountPath(fields[3]!) };
    if (type === 'cgroup2') found.push({ version: 2, ...at });
    else if (type === 'cgroup' && superOptions.split(',').includes('cpu')) found.push({ version: 1, ...at });
  }
  return found;
}

/** A process's or thread's path in the hierarchy of that version, from its /proc/<pid>/cgroup (undefined: not listed). */
export function cgroupPath(procCgroup: string, version: 1 | 2): string | undefined {
  for (const line of procCgroup.split('\n')) {
    const [id, controllers, ...path] = line.split(':');
    if (controllers === undefined) continue;
    if (version === 2 ? id === '0' && controllers === '' : controllers.split(',').includes('cpu')) return path.join(':');
  }
  return undefined;
}

/** The directory of hierarchy path `path` under the mount of `h`, or undefined when the mounted sub-tree does not hold it. */
export function cgroupDir(h: CpuHierarchy, path: string): string | undefined {
  const root = h.root === '/' ? '' : h.root;
  if (path !== h.root && !path.startsWith(`${root}/`)) return undefined;
  const below = path.slice(root.length).replace(/^\/+|\/+$/g, '');
  return below === '' ? h.mountPoint : join(h.mountPoint, below);
}

/** The files and texts that set a quota of `cpus` CPUs (undefined: no quota) per period of `periodUs`; a quota is at least the kernel's 1 ms. */
export function quotaWrites(version: 1 | 2, cpus: number | undefined, periodUs: number): [file: string, text: string][] {
  const quota = cpus === undefined ? undefined : Math.max(1000, Math.round(cpus * periodUs));
  if (version === 2) return [['cpu.max', `${quota ?? 'max'} ${periodUs}`]];
  return [
    ['cpu.cfs_period_us', String(periodUs)],
    ['cpu.cfs_quota_us', String(quota ?? -1)],
  ];
}

/** The period (µs) a group's quota is counted in, from its cpu.max (v2) or cpu.cfs_period_us (v1) text. */
export function quotaPeriod(version: 1 | 2, text: string): number {
  return Number(version === 2 ? text.trim().split(' ')[1] : text.trim());
}

export interface Throttling {
  /** Quota periods in which the group ran. */
  readonly periods: number;
  /** Those in which it used up its quota and waited. */
  readonly throttled: number;
}

/** The throttling counters of a cpu.stat (both versions name them nr_periods and nr_throttled). */
export function parseThrottling(cpuStat: string): Throttling {
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(cpuStat)?.[1] ?? 0);
  return { periods: value('nr_periods'), throttled: value('nr_throttled') };
}

/** The CPU seconds a group has used, from its cpu.stat (`usage_usec`, cgroup v2), or undefined when the file has no such counter (v1). */
export function parseUsageSeconds(cpuStat: string): number | undefined {
  const m = /^usage_usec (\d+)$/m.exec(cpuStat);
  return m === null ? undefined : Number(m[1]) / 1e6;
}

/**
 * A process and its descendants (any child process a node starts, e.g. an esbuild service), parents first,
 * from the `children` files of each of its threads (/proc/<pid>/task/<tid>/children); `read` answers a file's text or
 * throws when it is gone. A process that ended meanwhile is left out.
 */
export function processTree(pid: number, read: (path: string) => string, list: (dir: string) => string[]): number[] {
  const tree: number[] = [];
  const visit = (p: number) => {
    let tids: string[];
    try {
      tids = list(`/proc/${p}/task`);
    } catch {
      return; // ended
    }
    tree.push(p);
    for (const tid of tids) {
      let text = '';
      try {
        text = read(`/proc/${p}/task/${tid}/children`);
      } catch {
        // the thread ended
      }
      for (const child of text.split(/\s+/).filter(Boolean)) visit(Number(child));
    }
  };
  visit(pid);
  return tree;
}
