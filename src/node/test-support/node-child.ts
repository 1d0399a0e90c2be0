/**
 * Child processes for tests: a TypeScript script run by Node itself
 * (`node --import tsx script.ts`), so the PID a test signals is the process
 * doing the work, not a wrapper. Every child is tracked, and `killAll`
 * (afterEach) leaves none behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface NodeChild {
  readonly process: ChildProcess;
  readonly pid: number;
  /** Every line the child wrote to stdout so far. */
  readonly lines: string[];
  readonly stderr: string[];
  /** The exit code, or the signal that ended it. */
  readonly exited: Promise<number | NodeJS.Signals>;
  /** Resolves with the first stdout line `match` accepts (rejects if the child exits first). */
  waitForLine(match: (line: string) => boolean): Promise<string>;
  send(line: string): void;
}

const running = new Set<ChildProcess>();

/** Starts `node --import tsx <script> ...args` in the repository root. */
export function startNodeChild(script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): NodeChild {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  if (child.pid === undefined) throw new Error(`Could not start ${script}`);
  running.add(child);
  const lines: string[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const check of [...waiters]) check();
  });
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = new Promise<number | NodeJS.Signals>((resolve) =>
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? signal ?? -1);
    }),
  );
  return {
    process: child,
    pid: child.pid,
    lines,
    stderr,
    exited,
    waitForLine(match) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = lines.find(match);
          if (line === undefined) return;
          waiters.delete(check);
          resolve(line);
        };
        waiters.add(check);
        check();
        void exited.then((how) => {
          if (!waiters.has(check)) return;
          waiters.delete(check);
          reject(new Error(`${script} ended (${how}) before the expected line; stderr:\n${stderr.join('\n')}`));
        });
      });
    },
    send(line) {
      child.stdin!.write(`${line}\n`);
    },
  };
}

/** Whether a process with this PID still exists (a reaped child does not). */
export { isRunning as processExists } from '../../../server/test-support/child-server';

/** SIGKILLs every child still running and waits until each is gone. */
export async function killAll(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((done) => {
          child.once('exit', () => done());
          child.kill('SIGKILL');
        }),
    ),
  );
}
