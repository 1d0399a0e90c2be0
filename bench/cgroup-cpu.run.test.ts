import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { openCpuCaps } from './cgroup-cpu';
import { cgroupPath } from './cgroup-files';

/** Prints "ready", then on a line from stdin starts a worker thread and prints "worker". */
const CHILD = `
const { Worker } = require('node:worker_threads');
process.stdin.once('data', () => new Worker('setInterval(() => {}, 1000); require("node:worker_threads").parentPort.postMessage(1)', { eval: true }).once('message', () => console.log('worker')));
console.log('ready');
`;

describe('openCpuCaps on this machine', () => {
  it('caps a real process with all its threads (a thread started after it joined too) and removes its groups on close, or says why it cannot', async () => {
    const opened = openCpuCaps();
    if ('unavailable' in opened) {
      // Not root, read-only or no cpu controller: the bench prints this reason instead of the capped rows.
      expect(opened.unavailable).toMatch(/cgroup|cpu/);
      return;
    }
    const { caps } = opened;
    const child = spawn(process.execPath, ['-e', CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! });
    const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      expect(await next()).toBe('ready');
      const before = cgroupPath(readFileSync(`/proc/${child.pid}/cgroup`, 'utf8'), caps.version);
      const group = caps.group('node-1');
      group.setCpus(0.5, 10_000);
      const quota = caps.version === 2 ? readFileSync(`${caps.dir}/node-1/cpu.max`, 'utf8') : readFileSync(`${caps.dir}/node-1/cpu.cfs_quota_us`, 'utf8') + readFileSync(`${caps.dir}/node-1/cpu.cfs_period_us`, 'utf8');
      expect(quota.split(/\s+/).filter(Boolean)).toEqual(['5000', '10000']);
      group.add(child.pid!);
      child.stdin!.write('go\n');
      expect(await next()).toBe('worker');
      const threads = group.threads(child.pid!);
      expect(threads.outside).toEqual([]);
      expect(threads.all).toBeGreaterThan(1);
      expect(group.throttling().periods).toBeGreaterThanOrEqual(0);
      expect(existsSync(caps.dir)).toBe(true);
      caps.close();
      expect(existsSync(caps.dir)).toBe(false);
      // Back where it was, still running.
      expect(cgroupPath(readFileSync(`/proc/${child.pid}/cgroup`, 'utf8'), caps.version)).toBe(before);
    } finally {
      caps.close();
      child.kill('SIGKILL');
      await exited;
    }
  });
});
