import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { openCpuCaps, pidNamespace, runGroupName } from './cgroup-cpu';
import { cgroupPath } from './cgroup-files';

/**
 * Prints "ready"; on "worker" starts a worker thread and prints "worker"; on "child" starts a child process and prints
 * its pid; on "busy" spins until it has used 50 ms of CPU, then prints "done" (bounded by its own CPU, not by time).
 */
const CHILD = `
const { Worker } = require('node:worker_threads');
const { spawn } = require('node:child_process');
createInterface = require('node:readline').createInterface;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'worker') new Worker('setInterval(() => {}, 1000); require("node:worker_threads").parentPort.postMessage(1)', { eval: true }).once('message', () => console.log('worker'));
  if (line === 'child') console.log(String(spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }).pid));
  if (line === 'busy') {
    const start = process.cpuUsage();
    for (;;) {
      const used = process.cpuUsage(start);
      if (used.user + used.system >= 50000) break;
    }
    console.log('done');
  }
});
console.log('ready');
`;

const groupOf = (pid: number, version: 1 | 2) => cgroupPath(readFileSync(`/proc/${pid}/cgroup`, 'utf8'), version);

describe('openCpuCaps on this machine', () => {
  it('caps a real process with all its threads and child processes, throttles it, moves it back on release and removes its groups on close', async (ctx) => {
    const opened = openCpuCaps();
    // Not root, read-only, no cpu controller or no bandwidth control: the bench prints this reason instead of the capped rows.
    if ('unavailable' in opened) return ctx.skip(`CPU cgroups unavailable here: ${opened.unavailable}`);
    const { caps } = opened;
    const child = spawn(process.execPath, ['-e', CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! });
    const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let grandchild: number | undefined;
    try {
      expect(await next()).toBe('ready');
      child.stdin!.write('child\n');
      grandchild = Number(await next());
      const before = groupOf(child.pid!, caps.version);
      const group = caps.group('node-1');
      group.setCpus(0.5, 10_000);
      const quota = caps.version === 2 ? readFileSync(`${caps.dir}/node-1/cpu.max`, 'utf8') : readFileSync(`${caps.dir}/node-1/cpu.cfs_quota_us`, 'utf8') + readFileSync(`${caps.dir}/node-1/cpu.cfs_period_us`, 'utf8');
      expect(quota.split(/\s+/).filter(Boolean)).toEqual(['5000', '10000']);
      expect(group.add(child.pid!).sort()).toEqual([child.pid!, grandchild].sort());
      expect(groupOf(grandchild, caps.version)).toBe(group.path);
      child.stdin!.write('worker\n');
      expect(await next()).toBe('worker');
      const threads = group.threads(child.pid!);
      expect(threads.outside).toEqual([]);
      expect(threads.all).toBeGreaterThan(2);
      // 1 ms per 10 ms period: 50 ms of CPU take at least 50 periods, each used up, so the group is throttled.
      group.setCpus(0.1, 10_000);
      const start = group.throttling();
      child.stdin!.write('busy\n');
      expect(await next()).toBe('done');
      const end = group.throttling();
      expect(end.periods).toBeGreaterThan(start.periods);
      expect(end.throttled).toBeGreaterThan(start.throttled);
      // Back where they were, still running; the group stays for the next capped rows.
      group.release();
      expect(groupOf(child.pid!, caps.version)).toBe(before);
      expect(groupOf(grandchild, caps.version)).toBe(before);
      expect(existsSync(caps.dir)).toBe(true);
      caps.close();
      expect(existsSync(caps.dir)).toBe(false);
    } finally {
      caps.close();
      if (grandchild !== undefined) process.kill(grandchild, 'SIGKILL');
      child.kill('SIGKILL');
      await exited;
    }
  }, 20_000);
});

describe('openCpuCaps over a cgroup tree without CPU bandwidth control', () => {
  // A plain directory laid out as a cgroup mount: mkdir makes no quota files in it, as a kernel without CONFIG_CFS_BANDWIDTH.
  const fakeMount = (version: 1 | 2) => {
    const dir = mkdtempSync(join(tmpdir(), 'roomsync-fake-cgroup-'));
    const line = version === 2 ? `41 31 0:38 / ${dir} rw,relatime - cgroup2 cgroup2 rw` : `32 31 0:29 / ${dir} rw,relatime - cgroup cgroup rw,cpu`;
    return { dir, view: { mountinfo: line, ownCgroup: version === 2 ? '0::/' : '1:cpu:/' } };
  };

  it('cgroup v1: says unavailable (no cpu.cfs_quota_us) and leaves no group behind', () => {
    const { dir, view } = fakeMount(1);
    try {
      writeFileSync(join(dir, 'cgroup.procs'), '');
      const opened = openCpuCaps(view);
      expect(opened).toEqual({ unavailable: expect.stringMatching(/no CPU bandwidth control \(no cpu\.cfs_quota_us\)/) });
      expect(existsSync(join(dir, runGroupName()))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('cgroup v2: says unavailable (no cpu.max) and disables the cpu controller it enabled for the mount root\'s children', () => {
    const { dir, view } = fakeMount(2);
    try {
      writeFileSync(join(dir, 'cgroup.controllers'), 'cpu memory\n');
      writeFileSync(join(dir, 'cgroup.subtree_control'), 'memory\n');
      const opened = openCpuCaps(view);
      expect(opened).toEqual({ unavailable: expect.stringMatching(/no CPU bandwidth control \(no cpu\.max\)/) });
      // The kernel reads "-cpu" as disabling it (a plain file keeps the last write).
      expect(readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8')).toBe('-cpu');
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('cgroup v2: leaves the controllers alone when cpu was enabled already', () => {
    const { dir, view } = fakeMount(2);
    try {
      writeFileSync(join(dir, 'cgroup.controllers'), 'cpu memory\n');
      writeFileSync(join(dir, 'cgroup.subtree_control'), 'cpu memory\n');
      expect('unavailable' in openCpuCaps(view)).toBe(true);
      expect(readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8')).toBe('cpu memory\n');
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe('the sweep of earlier runs on this machine', () => {
  it('kills the processes still in the groups of a run whose bench is gone (SIGKILL) and removes them', async (ctx) => {
    const first = openCpuCaps();
    if ('unavailable' in first) return ctx.skip(`CPU cgroups unavailable here: ${first.unavailable}`);
    const base = dirname(first.caps.dir);
    first.caps.close();
    // A pid above the kernel's pid_max (at most 2^22): no such bench runs.
    const old = join(base, `roomsync-bench-${pidNamespace()}-4194305`);
    const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => sleeper.once('exit', (_, signal) => resolve(signal)));
    try {
      mkdirSync(join(old, 'node-1'), { recursive: true });
      writeFileSync(join(old, 'node-1', 'cgroup.procs'), String(sleeper.pid));
      const opened = openCpuCaps();
      if ('unavailable' in opened) throw new Error(opened.unavailable);
      opened.caps.close();
      expect(opened.caps.swept).toContain(`roomsync-bench-${pidNamespace()}-4194305 (its bench gone; 1 processes still in it killed)`);
      expect(await exited).toBe('SIGKILL');
      expect(existsSync(old)).toBe(false);
    } finally {
      sleeper.kill('SIGKILL');
      for (const d of [join(old, 'node-1'), old]) if (existsSync(d)) rmdirSync(d);
    }
  });

  it('leaves the groups of a run in another PID namespace alone: its pid says nothing here', async (ctx) => {
    const first = openCpuCaps();
    if ('unavailable' in first) return ctx.skip(`CPU cgroups unavailable here: ${first.unavailable}`);
    const base = dirname(first.caps.dir);
    first.caps.close();
    const other = join(base, `roomsync-bench-${pidNamespace() === '1' ? '2' : '1'}-4194305`);
    const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => sleeper.once('exit', () => resolve()));
    try {
      mkdirSync(join(other, 'node-1'), { recursive: true });
      writeFileSync(join(other, 'node-1', 'cgroup.procs'), String(sleeper.pid));
      const opened = openCpuCaps();
      if ('unavailable' in opened) throw new Error(opened.unavailable);
      opened.caps.close();
      expect(opened.caps.swept).not.toContain('4194305');
      expect(existsSync(join(other, 'node-1'))).toBe(true);
      expect(sleeper.exitCode === null && sleeper.signalCode === null).toBe(true);
    } finally {
      sleeper.kill('SIGKILL');
      await exited;
      for (const d of [join(other, 'node-1'), other]) if (existsSync(d)) rmdirSync(d);
    }
  });
});
