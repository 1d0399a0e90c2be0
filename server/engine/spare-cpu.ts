import { readFile, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/**
 * Above this share of time (%, over the last 10 s) that some runnable thread
 * of the machine waited for a CPU, no thread waits for a message by turning
 * its event loop: with no core to spare, the turning thread takes CPU from
 * the very thread it waits for (measured on 2 cores busy with a browser test
 * and a busy loop: push → own poke p50 0.98 ms turning, 0.45 ms sleeping).
 */
export const MAX_CPU_PRESSURE_TO_TURN = 10;

/** `some avg10` of Linux's /proc/pressure/cpu; undefined when the text has none. */
export function parseCpuPressure(text: string): number | undefined {
  const match = /^some\b.*?\bavg10=(\d+(?:\.\d+)?)/m.exec(text);
  return match === null ? undefined : Number(match[1]);
}

/** Whether the machine has a core to spare: by CPU pressure where the kernel reports it, else by the load average. */
export function hasSpareCore(pressure: number | undefined, load: number, cores: number): boolean {
  return pressure === undefined ? load < cores - 0.5 : pressure < MAX_CPU_PRESSURE_TO_TURN;
}

/** A cgroup's CPU quota in cores: cgroup v2's cpu.max ("max 100000" is none) or v1's cfs quota and period (-1 is none). */
export function parseCpuQuota(quota: string, period?: string): number | undefined {
  const [q, p = period] = quota.trim().split(/\s+/);
  const cores = Number(q) / Number(p);
  return Number.isFinite(cores) && cores > 0 ? cores : undefined;
}

/**
 * Where this process's CPU pressure is read: the machine's (/proc/pressure/cpu)
 * unless its cgroup has a CPU quota, where the machine may be idle while the
 * quota is spent (turning would spend it on the threads waited for): then its
 * cgroup's cpu.pressure (cgroup v2), or null, never turn, where there is none
 * (cgroup v1). `read` returns a file's text or undefined.
 */
export function cpuPressureSource(read: (path: string) => string | undefined): string | null {
  const groups = (read('/proc/self/cgroup') ?? '').split('\n');
  const v2 = groups.find((line) => line.startsWith('0::'))?.slice(3);
  const v1 = groups.map((line) => /^\d+:([^:]*\bcpu\b[^:]*):(.*)$/.exec(line)).find((m) => m !== null);
  // A container without its own cgroup namespace sees its group at the mount's root, not at the path named.
  const dirs = (root: string, path: string | undefined) => (path === undefined ? [] : [`${root}${path === '/' ? '' : path}`, root]);
  for (const dir of dirs('/sys/fs/cgroup', v2)) {
    const max = read(`${dir}/cpu.max`);
    if (max !== undefined && parseCpuQuota(max) !== undefined) return read(`${dir}/cpu.pressure`) === undefined ? null : `${dir}/cpu.pressure`;
  }
  for (const dir of dirs(`/sys/fs/cgroup/${v1?.[1] ?? 'cpu'}`, v1?.[2])) {
    const quota = read(`${dir}/cpu.cfs_quota_us`);
    if (quota !== undefined && parseCpuQuota(quota, read(`${dir}/cpu.cfs_period_us`)) !== undefined) return null;
  }
  return '/proc/pressure/cpu';
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Reads whether the machine has a core to spare, once a second, in the background (no reading yet: it has none). */
export class SpareCoreWatch {
  private spare = false;
  private readonly timer: ReturnType<typeof setInterval> | undefined;
  /** The pressure file; null: never turn (a quota with no pressure of its own); undefined: none, by the load average. */
  private source = cpuPressureSource(readText) as string | null | undefined;

  constructor(intervalMs = 1000) {
    if (this.source === null) return;
    this.look();
    this.timer = setInterval(() => this.look(), intervalMs);
    this.timer.unref();
  }

  get hasSpareCore(): boolean {
    return this.spare;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private look(): void {
    const byLoad = () => (this.spare = hasSpareCore(undefined, loadavg()[0]!, availableParallelism()));
    if (typeof this.source !== 'string') return void byLoad();
    readFile(this.source, 'utf8', (error, text) => {
      const pressure = error === null ? parseCpuPressure(text) : undefined;
      if (pressure === undefined) {
        this.source = undefined; // no pressure here (a kernel without PSI): not asked again
        byLoad();
      } else this.spare = hasSpareCore(pressure, loadavg()[0]!, availableParallelism());
    });
  }
}
