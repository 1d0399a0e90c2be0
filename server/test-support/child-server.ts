import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = `${ROOT}node_modules/.bin/tsx`;
const LISTENING = /^roomsync server listening on (ws:\/\/\S+) admin (http:\/\/\S+)/;

export interface ChildServer {
  readonly process: ChildProcess;
  readonly url: string;
  readonly adminURL: string;
  /** Resolves with the exit code (or signal) once the process ended. */
  readonly exited: Promise<number | string>;
  readonly stderr: string[];
}

/** Starts `server/cli.ts` as a child process and resolves once it prints its URL. */
export function startChildServer(args: readonly string[]): Promise<ChildServer> {
  const child = spawn(TSX, ['server/cli.ts', '--port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = LISTENING.exec(line);
      if (m) resolve({ process: child, url: m[1]!, adminURL: m[2]!, exited, stderr });
    });
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening: ${stderr.join('\n')}`)));
  });
}
