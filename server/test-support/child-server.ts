import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LISTENING = /^roomsync server listening on (ws:\/\/\S+) admin (http:\/\/\S+)/;
/** Every child still running, so a suite can make sure none outlives it. */
const running = new Set<ChildServer>();

export interface ChildServerOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Run as this user id (e.g. to meet a permission error as root). */
  readonly uid?: number;
  readonly gid?: number;
}

export interface ChildServer {
  /** The server process itself: node runs server/cli.ts with tsx as an import hook, no wrapper in between. */
  readonly process: ChildProcess;
  readonly pid: number;
  readonly url: string;
  readonly adminURL: string;
  /** Resolves with the exit code (or signal) once the process ended. */
  readonly exited: Promise<number | string>;
  readonly stderr: string[];
  /** Sends `signal` to the server process and resolves with how it ended, once its PID is gone. */
  stop(signal: NodeJS.Signals): Promise<number | string>;
}

/** True while a process with this PID exists. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Processes of this Node binary whose parent is `pid` (a server's room
 * processes), from /proc. Others are left out: tsx starts an esbuild service
 * under a server that compiles a changed source.
 */
export function childProcessIDs(pid: number): number[] {
  const children: number[] = [];
  const node = realpathSync(process.execPath);
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      if (Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === pid && readlinkSync(`/proc/${entry}/exe`) === node) children.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return children;
}

/** Starts `server/cli.ts` as a child process (the real server, not a wrapper) and resolves once it prints its URL. */
export function startChildServer(args: readonly string[], options: ChildServerOptions = {}): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', '--port', '0', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid ?? options.uid }),
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = LISTENING.exec(line);
      if (m === null) return;
      const server: ChildServer = {
        process: child,
        pid: child.pid!,
        url: m[1]!,
        adminURL: m[2]!,
        exited,
        stderr,
        async stop(signal) {
          child.kill(signal);
          const how = await exited;
          running.delete(server);
          if (isRunning(child.pid!)) throw new Error(`server process ${child.pid} is still running after ${signal}`);
          return how;
        },
      };
      running.add(server);
      void exited.then(() => running.delete(server));
      resolve(server);
    });
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening: ${stderr.join('\n')}`)));
  });
}

/** Kills (SIGKILL) every child server still running; for afterAll. */
export async function killChildServers(): Promise<void> {
  await Promise.all([...running].map((s) => s.stop('SIGKILL')));
}
