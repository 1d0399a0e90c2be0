/**
 * CPU caps for the bench's server nodes, each modelling one small machine:
 * a cgroup per node with a CPU quota, under a parent
 * `roomsync-bench-<pid namespace>-<pid>` made for this run and removed when
 * it ends (close(), the process's exit; the next run in the same PID
 * namespace sweeps the parents of runs killed outright, killing what is
 * still in them). cgroup v2 when its cpu controller is available
 * (`cpu.max`), else the v1 cpu hierarchy (`cpu.cfs_quota_us`); without CPU
 * bandwidth control (neither file) caps are unavailable. A process joins
 * through `cgroup.procs`: all its threads move, and threads it starts later
 * are born in the group; its child processes are moved too.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cgroupDir, cgroupPath, cpuHierarchies, parseThrottling, parseUsageSeconds, processTree, quotaPeriod, quotaWrites, type CpuHierarchy, type Throttling } from './cgroup-files';

/** The parent directory name of a bench run's groups: its PID namespace (the inode of /proc/self/ns/pid) and its pid. */
export const RUN_GROUP = /^roomsync-bench-(\d+)-(\d+)$/;

/** This process's PID namespace: a run's pid only names a process (alive or gone) within it. */
export function pidNamespace(): string {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '0';
  } catch {
    return '0';
  }
}

/** The parent group name of this run. */
export function runGroupName(): string {
  return `roomsync-bench-${pidNamespace()}-${process.pid}`;
}

export interface CpuGroup {
  readonly name: string;
  /** Its path in the hierarchy, as /proc/<pid>/cgroup shows it. */
  readonly path: string;
  /** Sets the quota: `cpus` CPUs, or none (undefined), counted per period of `periodUs` (the kernel's default period when not given). */
  setCpus(cpus: number | undefined, periodUs?: number): void;
  /**
   * Moves the process and its child processes in (every thread; threads started later are born here), each after
   * reading where it was (/proc/<pid>/cgroup), and answers the processes moved.
   */
  add(pid: number): number[];
  /** Moves every process in the group back to where it was before add (the group's parent for one it did not add). */
  release(): void;
  /** The threads of the process and its child processes, and those of them not in this group (an empty list is the point). */
  threads(pid: number): { all: number; outside: number[] };
  throttling(): Throttling;
  /** CPU seconds its processes used, from the group's own counter (cgroup v2 cpu.stat, v1 cpuacct.usage), or undefined when it has none. */
  usageSeconds(): number | undefined;
}

export interface CpuCaps {
  readonly version: 1 | 2;
  /** The run's parent group, e.g. /sys/fs/cgroup/cpu/roomsync-bench-4026531836-123. */
  readonly dir: string;
  /** "cgroup v1 at /sys/fs/cgroup/cpu/roomsync-bench-123": where the groups are. */
  readonly where: string;
  /** What the sweep of earlier runs' groups did ("" when there were none). */
  readonly swept: string;
  group(name: string): CpuGroup;
  /** Moves every process still in a group back where it was, removes the groups and the parent, and disables the v2 cpu controller it enabled; safe to call twice. */
  close(): void;
}

/** What openCpuCaps reads of the process's own /proc (given in tests to run it over a plain directory). */
export interface CgroupView {
  readonly mountinfo: string;
  readonly ownCgroup: string;
}

const read = (path: string) => readFileSync(path, 'utf8');
const reason = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);
const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};
const tree = (pid: number) => processTree(pid, read, (dir) => readdirSync(dir));
/** The processes in a group that this process can see (cgroup v2 lists one in another PID namespace as 0). */
const procsIn = (dir: string) =>
  read(join(dir, 'cgroup.procs'))
    .split('\n')
    .map(Number)
    .filter((pid) => pid > 0);

/** Waits synchronously (also usable in an exit handler). */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Removes a group (its processes moved away or killed by `empty` first), retrying while exiting tasks still hold it. */
function removeGroup(dir: string, empty: (pid: number) => void): void {
  for (let attempt = 0; ; attempt++) {
    for (const pid of procsIn(dir)) {
      try {
        empty(pid);
      } catch {
        // gone meanwhile
      }
    }
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EBUSY' || attempt >= 100) throw error;
      pause(20);
    }
  }
}

/** Removes a run's parent and its groups (sub-directories). */
function removeRun(dir: string, empty: (pid: number) => void): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeGroup(join(dir, entry.name), empty);
  removeGroup(dir, empty);
}

/**
 * Removes the parents of earlier runs whose bench is gone (killed outright, SIGKILL): the processes still in their
 * groups are that bench's server nodes, left running; they are killed (SIGKILL), not moved out.
 */
function sweep(base: string): string {
  const notes: string[] = [];
  const namespace = pidNamespace();
  for (const name of readdirSync(base)) {
    const m = RUN_GROUP.exec(name);
    // A run in another PID namespace (another container on the same cgroup tree) cannot be told alive or gone from here.
    if (m === null || m[1] !== namespace || isRunning(Number(m[2]))) continue;
    const killed = new Set<number>();
    removeRun(join(base, name), (pid) => {
      process.kill(pid, 'SIGKILL');
      killed.add(pid);
    });
    notes.push(`${name} (its bench gone; ${killed.size} processes still in it killed)`);
  }
  return notes.length === 0 ? '' : `removed the CPU cgroups of earlier runs: ${notes.join(', ')}`;
}

/** The hierarchy to cap CPU in and where to make the run's parent, or why none can be used. */
function chooseHierarchy(view: CgroupView): { h: CpuHierarchy; base: string } | { unavailable: string } {
  const found = cpuHierarchies(view.mountinfo);
  const why: string[] = [];
  for (const h of [...found.filter((f) => f.version === 2), ...found.filter((f) => f.version === 1)]) {
    if (h.version === 2) {
      // The root of the mount: a v2 group with processes of its own cannot pass controllers to sub-groups.
      const controllers = read(join(h.mountPoint, 'cgroup.controllers')).trim();
      if (controllers.split(' ').includes('cpu')) return { h, base: h.mountPoint };
      why.push(`cgroup v2 at ${h.mountPoint} has no cpu controller (controllers: ${controllers || 'none'})`);
    } else {
      const path = cgroupPath(view.ownCgroup, 1);
      return { h, base: (path === undefined ? undefined : cgroupDir(h, path)) ?? h.mountPoint };
    }
  }
  if (!found.some((f) => f.version === 1)) why.push('no cgroup v1 cpu hierarchy is mounted');
  return { unavailable: why.join('; ') };
}

/** Opens a run's parent group, or says why CPU caps are unavailable here (not root, read-only, no cpu controller, no bandwidth control). */
export function openCpuCaps(given?: CgroupView): { caps: CpuCaps } | { unavailable: string } {
  let chosen: ReturnType<typeof chooseHierarchy>;
  try {
    chosen = chooseHierarchy(given ?? { mountinfo: read('/proc/self/mountinfo'), ownCgroup: read('/proc/self/cgroup') });
  } catch (error) {
    return { unavailable: `cannot read the cgroup mounts: ${reason(error)}` };
  }
  if ('unavailable' in chosen) return chosen;
  const { h, base } = chosen;
  const v = h.version;
  const procsOf = (dir: string) => join(dir, 'cgroup.procs');
  let swept = '';
  try {
    swept = sweep(base);
  } catch (error) {
    // not ours to clean, or read-only: the mkdir below says which
    swept = `could not remove the CPU cgroups of earlier runs under ${base}: ${reason(error)}`;
  }
  const parent = join(base, runGroupName());
  const baseControl = join(base, 'cgroup.subtree_control');
  /** v2: the cpu controller this run enabled for the base's children (disabled again on close). */
  let enabledCpu = false;
  const disableCpu = () => {
    if (!enabledCpu) return;
    enabledCpu = false;
    writeFileSync(baseControl, '-cpu');
  };
  /** Undoes what this run made (the parent, the controller) and says why the caps are unavailable. */
  const givenUp = (unavailable: string) => {
    try {
      rmdirSync(parent);
    } catch {
      // never made, or left for the next run's sweep
    }
    try {
      disableCpu();
    } catch {
      // as it was, or a group made meanwhile uses it
    }
    return { unavailable };
  };
  try {
    if (v === 2 && !read(baseControl).split(/\s+/).includes('cpu')) {
      writeFileSync(baseControl, '+cpu');
      enabledCpu = true;
    }
    mkdirSync(parent);
    if (v === 2) writeFileSync(join(parent, 'cgroup.subtree_control'), '+cpu');
  } catch (error) {
    return givenUp(`cannot make a CPU cgroup at ${parent} (cgroup v${v}): ${reason(error)}${process.getuid?.() === 0 ? '' : ' (not root)'}`);
  }
  // A kernel without CPU bandwidth control (CONFIG_CFS_BANDWIDTH) has the cpu controller but no quota files.
  const quotaFile = v === 2 ? 'cpu.max' : 'cpu.cfs_quota_us';
  if (!existsSync(join(parent, quotaFile))) {
    return givenUp(`cgroup v${v} at ${base} has no CPU bandwidth control (no ${quotaFile}): the kernel cannot cap a group's CPU`);
  }
  /** Where each process added was before, to move it back. */
  const origins = new Map<number, string>();
  const back = (pid: number) => {
    writeFileSync(origins.get(pid) ?? procsOf(base), String(pid));
    origins.delete(pid);
  };
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    process.off('exit', closeAtExit);
    removeRun(parent, back);
    try {
      disableCpu();
    } catch {
      // another run's groups use the controller now: it stays on, as it is for them
    }
  };
  // An exit without close() (an error, Ctrl+C ending the bench with process.exit) still removes the groups.
  const closeAtExit = () => {
    try {
      close();
    } catch (error) {
      console.error(`roomsync bench: could not remove the CPU cgroups at ${parent}: ${reason(error)}`);
    }
  };
  process.on('exit', closeAtExit);
  const groupPath = (dir: string) => `${h.root === '/' ? '' : h.root}${dir.slice(h.mountPoint.length)}`;
  return {
    caps: {
      version: v,
      dir: parent,
      where: `cgroup v${v} at ${parent}`,
      swept,
      close,
      group(name) {
        const dir = join(parent, name);
        mkdirSync(dir);
        const period = quotaPeriod(v, read(join(dir, v === 2 ? 'cpu.max' : 'cpu.cfs_period_us')));
        const path = groupPath(dir);
        return {
          name,
          path,
          setCpus(cpus, periodUs = period) {
            for (const [file, text] of quotaWrites(v, cpus, periodUs)) writeFileSync(join(dir, file), text);
          },
          add(pid) {
            const moved: number[] = [];
            for (const p of tree(pid)) {
              const from = cgroupPath(read(`/proc/${p}/cgroup`), v);
              if (from === path) continue;
              const fromDir = from === undefined ? undefined : cgroupDir(h, from);
              if (fromDir !== undefined) origins.set(p, procsOf(fromDir));
              writeFileSync(procsOf(dir), String(p));
              moved.push(p);
            }
            return moved;
          },
          release() {
            for (const p of procsIn(dir)) {
              try {
                back(p);
              } catch (error) {
                if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
              }
            }
          },
          threads(pid) {
            let all = 0;
            const outside: number[] = [];
            for (const p of tree(pid)) {
              let tids: number[];
              try {
                tids = readdirSync(`/proc/${p}/task`).map(Number);
              } catch {
                continue; // ended meanwhile
              }
              all += tids.length;
              for (const tid of tids) {
                try {
                  if (cgroupPath(read(`/proc/${p}/task/${tid}/cgroup`), v) !== path) outside.push(tid);
                } catch {
                  // ended meanwhile
                }
              }
            }
            return { all, outside };
          },
          throttling: () => parseThrottling(read(join(dir, 'cpu.stat'))),
          usageSeconds() {
            if (v === 2) return parseUsageSeconds(read(join(dir, 'cpu.stat')));
            // v1: only when cpuacct is mounted with cpu (then the group has cpuacct.usage, in ns).
            const usage = join(dir, 'cpuacct.usage');
            return existsSync(usage) ? Number(read(usage).trim()) / 1e9 : undefined;
          },
        };
      },
    },
  };
}
