/**
 * CPU caps for the bench's server nodes, each modelling one small machine:
 * a cgroup per node with a CPU quota, under a parent `roomsync-bench-<pid>`
 * made for this run and removed when it ends (close(), the process's exit,
 * and the next run sweeps the parents of runs killed outright). cgroup v2
 * when its cpu controller is available (`cpu.max`), else the v1 cpu
 * hierarchy (`cpu.cfs_quota_us`). A process joins through `cgroup.procs`:
 * all its threads move, and threads it starts later are born in the group.
 */
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cgroupDir, cgroupPath, cpuHierarchies, parseThrottling, quotaPeriod, quotaWrites, type CpuHierarchy, type Throttling } from './cgroup-files';

/** The parent directory name of a bench run's groups. */
export const RUN_GROUP = /^roomsync-bench-(\d+)$/;

export interface CpuGroup {
  readonly name: string;
  /** Its path in the hierarchy, as /proc/<pid>/cgroup shows it. */
  readonly path: string;
  /** Sets the quota: `cpus` CPUs, or none (undefined), counted per period of `periodUs` (the kernel's default period when not given). */
  setCpus(cpus: number | undefined, periodUs?: number): void;
  /** Moves the whole process (every thread; threads it starts later are born here). */
  add(pid: number): void;
  /** The process's threads, and those of them not in this group (an empty list is the point). */
  threads(pid: number): { all: number; outside: number[] };
  throttling(): Throttling;
}

export interface CpuCaps {
  readonly version: 1 | 2;
  /** The run's parent group, e.g. /sys/fs/cgroup/cpu/roomsync-bench-123. */
  readonly dir: string;
  /** "cgroup v1 at /sys/fs/cgroup/cpu/roomsync-bench-123": where the groups are. */
  readonly where: string;
  group(name: string): CpuGroup;
  /** Moves every process still in a group back where it was, removes the groups and the parent; safe to call twice. */
  close(): void;
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

/** Waits synchronously (also usable in an exit handler). */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Moves the processes of `dir` (a group) to `to` (a cgroup.procs file) and removes it, retrying while exiting tasks still hold it. */
function removeGroup(dir: string, to: (pid: number) => string): void {
  for (let attempt = 0; ; attempt++) {
    for (const pid of read(join(dir, 'cgroup.procs')).split('\n').filter(Boolean).map(Number)) {
      try {
        writeFileSync(to(pid), String(pid));
      } catch {
        // gone meanwhile
      }
    }
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EBUSY' || attempt >= 50) throw error;
      pause(20);
    }
  }
}

/** Removes a run's parent and its groups (sub-directories). */
function removeRun(dir: string, to: (pid: number) => string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeGroup(join(dir, entry.name), to);
  removeGroup(dir, to);
}

/** The hierarchy to cap CPU in and where to make the run's parent, or why none can be used. */
function chooseHierarchy(): { h: CpuHierarchy; base: string } | { unavailable: string } {
  const found = cpuHierarchies(read('/proc/self/mountinfo'));
  const own = read('/proc/self/cgroup');
  const why: string[] = [];
  for (const h of [...found.filter((f) => f.version === 2), ...found.filter((f) => f.version === 1)]) {
    if (h.version === 2) {
      // The root of the mount: a v2 group with processes of its own cannot pass controllers to sub-groups.
      const controllers = read(join(h.mountPoint, 'cgroup.controllers')).trim();
      if (controllers.split(' ').includes('cpu')) return { h, base: h.mountPoint };
      why.push(`cgroup v2 at ${h.mountPoint} has no cpu controller (controllers: ${controllers || 'none'})`);
    } else {
      const path = cgroupPath(own, 1);
      return { h, base: (path === undefined ? undefined : cgroupDir(h, path)) ?? h.mountPoint };
    }
  }
  if (!found.some((f) => f.version === 1)) why.push('no cgroup v1 cpu hierarchy is mounted');
  return { unavailable: why.join('; ') };
}

/** Opens a run's parent group, or says why CPU caps are unavailable here (not root, read-only, no cpu controller). */
export function openCpuCaps(): { caps: CpuCaps } | { unavailable: string } {
  let chosen: ReturnType<typeof chooseHierarchy>;
  try {
    chosen = chooseHierarchy();
  } catch (error) {
    return { unavailable: `cannot read the cgroup mounts: ${reason(error)}` };
  }
  if ('unavailable' in chosen) return chosen;
  const { h, base } = chosen;
  const v = h.version;
  const procsOf = (dir: string) => join(dir, 'cgroup.procs');
  /** Where each process added was before, to move it back. */
  const origins = new Map<number, string>();
  const back = (pid: number) => origins.get(pid) ?? procsOf(base);
  try {
    // Runs killed outright (SIGKILL) left their parent: remove those whose bench is gone.
    for (const name of readdirSync(base)) {
      const m = RUN_GROUP.exec(name);
      if (m !== null && !isRunning(Number(m[1]))) removeRun(join(base, name), () => procsOf(base));
    }
  } catch {
    // not ours to clean, or read-only: the mkdir below says which
  }
  const parent = join(base, `roomsync-bench-${process.pid}`);
  try {
    if (v === 2 && !read(join(base, 'cgroup.subtree_control')).split(/\s+/).includes('cpu')) writeFileSync(join(base, 'cgroup.subtree_control'), '+cpu');
    mkdirSync(parent);
    if (v === 2) writeFileSync(join(parent, 'cgroup.subtree_control'), '+cpu');
  } catch (error) {
    try {
      rmdirSync(parent);
    } catch {
      // never made
    }
    return { unavailable: `cannot make a CPU cgroup at ${parent} (cgroup v${v}): ${reason(error)}${process.getuid?.() === 0 ? '' : ' (not root)'}` };
  }
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    process.off('exit', closeAtExit);
    removeRun(parent, back);
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
            const from = cgroupPath(read(`/proc/${pid}/cgroup`), v);
            const fromDir = from === undefined ? undefined : cgroupDir(h, from);
            if (fromDir !== undefined) origins.set(pid, procsOf(fromDir));
            writeFileSync(procsOf(dir), String(pid));
          },
          threads(pid) {
            const tids = readdirSync(`/proc/${pid}/task`);
            const outside = tids.map(Number).filter((tid) => {
              try {
                return cgroupPath(read(`/proc/${pid}/task/${tid}/cgroup`), v) !== path;
              } catch {
                return false; // ended meanwhile
              }
            });
            return { all: tids.length, outside };
          },
          throttling: () => parseThrottling(read(join(dir, 'cpu.stat'))),
        };
      },
    },
  };
}
