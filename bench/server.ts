/**
 * `npm run bench -- server`: the reference server in its own process (the CLI),
 * driven over loopback from this one.
 *  - push → own poke round trip, against a raw `ws` echo round trip (also a child process)
 *  - poke fan-out to 100 clients of one room, and of a 100 KB poke to 2,000 sockets (with CPU use)
 *  - sustained mutations/s: 1 room × 50 clients and 50 rooms × 2 clients, with the server's memory
 *  - PostgreSQL (a real server from the npm binaries, durable commits) beside SQLite: push → own poke
 *    and → poke on another node, sustained mutations/s and batches/s with 1 and 3 nodes, with the CPU
 *    of every process (on a 2-core machine the cores, not the code, bound the 3-node rows; the cluster rows also run
 *    each node in its own CPU cgroup, one small machine per node: bench/server-cluster.ts)
 * Every loop is bounded in count and time. Prints figures; never fails on speed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect as netConnect, type Socket } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { WebSocket } from 'ws';
import { buildConnectURL } from '../src/protocol';
import { startPostgres, type PostgresServer } from '../server/test-support/postgres-server';
import { CORES, cpuBound, cpuPerMutation, type LoadFigures, type WindowEdge } from './load-figures';
import { processTree } from './cgroup-files';
import { balancedOrders } from './balanced-orders';
import { fixed, median, percentile, printTable } from './measure';
import { parseNodeCpu, parseNodeCpuPeriodMs, runClusterRows, type ClusterLoad } from './server-cluster';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ADMIN_KEY = 'bench-admin-key';
const RTT_SAMPLES = 2000;
const RTT_WARMUP = 200;
/**
 * Rooms each push → own poke server gets an unmeasured run in before the rounds (a round's room is new, and with
 * room processes lands in either process: each is a JIT of its own to warm), so long-running servers are compared.
 */
const RTT_WARMUP_ROOMS = 6;
const FANOUT_CLIENTS = 100;
const FANOUT_SAMPLES = 200;
/** BENCH_SUSTAIN_MS: how long each sustained row runs (longer for profiles and per-thread CPU). */
const SUSTAIN_MS = Number(process.env.BENCH_SUSTAIN_MS ?? '3000');
const IN_FLIGHT_PER_CLIENT = 8;
const FSYNC_SAMPLES = 500;
const BIG_FANOUT_SOCKETS = 2000;
/** The fan-out's sockets are one user's new clients in one room: more than a user's default budget of them an hour. */
const FANOUT_CLIENT_BUDGET = ['--new-clients-per-user', '1000000'];
const BIG_FANOUT_BYTES = 100 * 1024;
const BIG_FANOUT_SAMPLES = 10;
const CONNECT_BATCH = 100;
const CLOCK_TICKS_PER_SECOND = 100;
/** PostgreSQL settings for the storage rows, e.g. BENCH_PG_SETTINGS="synchronous_commit=off" to see what the WAL flush costs. */
const PG_SETTINGS = Object.fromEntries((process.env.BENCH_PG_SETTINGS ?? '').split(' ').filter((s) => s.includes('=')).map((s) => s.split('=', 2) as [string, string]));
/**
 * BENCH_PG_WAITS=1: with BENCH_SERVER_ROWS=hot, samples the nodes' PostgreSQL sessions while the 3-node hot room runs and
 * prints where they are (waiting for the room's lock, holding it while their node works, flushing the WAL), per batch.
 */
const PG_WAITS = process.env.BENCH_PG_WAITS === '1';
/** Clients of the hot room in the storage rows: few, so batches stay small and their rate shows what one room can take. */
const HOT_ROOM_CLIENTS = 4;
/** BENCH_SERVER_ROWS=storage: only the SQLite-vs-PostgreSQL rows; =hot: only their hot-room rows, 1 and 3 nodes (quick A/B runs). */
const ONLY_STORAGE_ROWS = ['storage', 'hot', 'cluster', 'cross'].includes(process.env.BENCH_SERVER_ROWS ?? '');
/** BENCH_SERVER_ROWS=cross: only the PostgreSQL round trips (push → own poke on node A, push → poke on node B), BENCH_CROSS_ROUNDS times (default 3), for quick A/B runs. */
const ONLY_CROSS_ROWS = process.env.BENCH_SERVER_ROWS === 'cross';
const CROSS_ROUNDS = Number(process.env.BENCH_CROSS_ROUNDS ?? '3');
const ONLY_HOT_ROWS = process.env.BENCH_SERVER_ROWS === 'hot';
/** BENCH_SERVER_ROWS=fanout: only the fan-out of a 100 KB poke to 2,000 sockets, BENCH_FANOUT_RUNS times (default 1), each on a fresh server. */
const ONLY_BIG_FANOUT = process.env.BENCH_SERVER_ROWS === 'fanout';
const BIG_FANOUT_RUNS = Number(process.env.BENCH_FANOUT_RUNS ?? '1');
/** BENCH_SERVER_ROWS=rtt: only the first table (push → own poke on SQLite (room processes, workers, main thread), memory). */
const ONLY_RTT_ROWS = process.env.BENCH_SERVER_ROWS === 'rtt';
/**
 * BENCH_RTT_ROUNDS (default 1): the SQLite FULL rows (the default room processes, rooms in workers, in the main thread) are measured this many
 * times on the same servers, in orders that put each in each place and right after each other equally often (fully so over a
 * multiple of 4 rounds with BENCH_RTT_BASELINE, of 6 without); their p50 and p99 are the medians over the rounds.
 */
const RTT_ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_RTT_ROUNDS ?? '1')) || 1);
/**
 * BENCH_RTT_BASELINE=DIR: a checkout of an earlier commit (with node_modules) whose server, started with the same base
 * flags, joins the alternating SQLite FULL rounds as one more row, so a change is compared with what users had in one run.
 */
const RTT_BASELINE_DIR = process.env.BENCH_RTT_BASELINE;
/**
 * BENCH_SERVER_ROWS=cluster: only the 50 rooms × 2 clients PostgreSQL rows (1 node, 3 nodes rooms spread, clients spread), after an
 * unmeasured warm-up, BENCH_CLUSTER_ROUNDS times (default 1) in alternating rounds, each round uncapped and with each node on its own
 * CPU budget (BENCH_NODE_CPU; bench/server-cluster.ts).
 */
const ONLY_CLUSTER_ROWS = process.env.BENCH_SERVER_ROWS === 'cluster';
const CLUSTER_ROUNDS = Number(process.env.BENCH_CLUSTER_ROUNDS ?? '1');
/** The cluster rows' unmeasured warm-up, per load. */
const WARM_UP_MS = 1500;
/** BENCH_CLUSTER_LOADS=one,rooms,clients (default all): which of those rows each round runs, e.g. =rooms to profile the nodes under one load. */
const CLUSTER_LOADS = new Set((process.env.BENCH_CLUSTER_LOADS ?? 'one,rooms,clients').split(','));
/**
 * BENCH_NODE_CPU (cluster rows): each round runs again with every node's server process in its own CPU cgroup
 * capped at this many CPUs (one small machine per node; PostgreSQL and the bench uncapped). Unset or `auto`: the
 * cap rule of bench/node-cpu-cap.ts from the uncapped 1-node run; `off`: uncapped rows only.
 */
const NODE_CPU = parseNodeCpu(process.env.BENCH_NODE_CPU);
/** BENCH_NODE_CPU_PERIOD_MS: the period the capped nodes' quota is counted in (default: the kernel's, 100 ms). */
const NODE_CPU_PERIOD_MS = parseNodeCpuPeriodMs(process.env.BENCH_NODE_CPU_PERIOD_MS);
/** More server flags for every server this bench starts, e.g. BENCH_SERVER_ARGS="--room-workers 0". */
const EXTRA_SERVER_ARGS = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter((a) => a !== '');
/** Node flags for every server this bench starts, e.g. BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (NODE_OPTIONS refuses --cpu-prof). */
const SERVER_NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

interface Child {
  readonly proc: ChildProcess;
  readonly url: string;
  readonly adminURL?: string;
}

/** Every child this bench started and has not seen exit: killed when the bench ends any other way (an error, Ctrl+C). */
const children = new Set<ChildProcess>();
const killChildren = () => {
  for (const child of children) child.kill('SIGKILL');
};
/** Ctrl+C or a kill ends the bench through process.exit, so the exit handlers run: children killed, PostgreSQL stopped (its harness), CPU cgroups removed. */
const exitOnSignal: [NodeJS.Signals, () => never][] = [
  ['SIGINT', () => process.exit(130)],
  ['SIGTERM', () => process.exit(143)],
];

function spawnUntil(cmd: string, args: string[], pattern: RegExp, cwd = ROOT): Promise<{ proc: ChildProcess; match: RegExpExecArray }> {
  const proc = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(proc);
  proc.once('exit', () => children.delete(proc));
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const match = pattern.exec(line);
      if (match) resolve({ proc, match });
    });
    proc.on('exit', (code) => reject(new Error(`${cmd} exited with ${code}`)));
  });
}

/** `checkout`: another checkout's server (BENCH_RTT_BASELINE), given only the flags every version takes. */
async function startServer(storageArgs: string[], checkout?: string): Promise<Child> {
  // node itself runs the server (tsx as an import hook), so SIGTERM reaches the server, not a wrapper.
  const { proc, match } = await spawnUntil(
    process.execPath,
    [...SERVER_NODE_ARGS, '--import', 'tsx', 'server/cli.ts', '--port', '0', '--admin-key', ADMIN_KEY, '--log-level', 'error', ...storageArgs, ...(checkout === undefined ? EXTRA_SERVER_ARGS : [])],
    /^roomsync server listening on (\S+) admin (\S+)/,
    checkout,
  );
  return { proc, url: match[1]!, adminURL: match[2]! };
}

const ECHO_SERVER = `
const { WebSocketServer } = require('ws');
const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
wss.on('connection', (ws) => ws.on('message', (d) => ws.send(d.toString())));
wss.on('listening', () => console.log('echo listening on ws://127.0.0.1:' + wss.address().port));
`;

async function startEcho(): Promise<Child> {
  const { proc, match } = await spawnUntil(process.execPath, ['-e', ECHO_SERVER], /^echo listening on (\S+)/);
  return { proc, url: match[1]! };
}

async function stop(child: Child): Promise<void> {
  const exited = new Promise((resolve) => child.proc.on('exit', resolve));
  child.proc.kill('SIGTERM');
  await exited;
}

let seq = 0;
const id = (p: string) => `${p}-${process.pid}-${++seq}`;

/** Where a poke names the acknowledged ids of the receiver's group (`{"<clientID>":<id>}`, the group's clients only). */
const LMID_CHANGES = Buffer.from('"lastMutationIDChanges":');
const POKE_START = Buffer.from('["poke"');

/**
 * A lean protocol client: tracks its own acknowledged id, reading only the
 * poke's lastMutationIDChanges (its group's clients: a few bytes) instead of
 * parsing the whole poke; push frames are built from text made once per
 * client (the same bytes JSON.stringify gives, checked on the first push),
 * and a burst of pushes leaves in one socket write.
 */
class BenchClient {
  lmid = 0;
  private sent = 0;
  private onPoke: (() => void) | undefined;
  readonly clientID = id('c');
  readonly clientGroupID = id('g');
  readonly ws: WebSocket;
  private readonly framePrefix: string;
  private readonly mutationPrefix: string;
  private checked = false;

  private constructor(origin: string, roomID: string) {
    const params = { clientID: this.clientID, clientGroupID: this.clientGroupID, roomID, baseCookie: null, ts: 0, lmid: 0 };
    this.ws = new WebSocket(buildConnectURL(origin, { ...params, wsid: 'b'.repeat(21) }), ['bench'], { perMessageDeflate: false });
    this.framePrefix = `["push",{"timestamp":0,"clientGroupID":${JSON.stringify(this.clientGroupID)},"mutations":[{"id":`;
    this.mutationPrefix = `,"clientID":${JSON.stringify(this.clientID)},"name":`;
    this.ws.on('message', (data: Buffer) => {
      if (data.compare(POKE_START, 0, POKE_START.length, 0, POKE_START.length) !== 0) return;
      // Every poke has it, before the patch; its keys are client ids (no braces in them).
      const start = data.indexOf(LMID_CHANGES) + LMID_CHANGES.length;
      const changes = JSON.parse(data.toString('utf8', start, data.indexOf('}', start) + 1)) as Record<string, number>;
      const own = changes[this.clientID];
      if (own !== undefined) this.lmid = own;
      this.onPoke?.();
    });
  }

  static async connect(origin: string, roomID: string): Promise<BenchClient> {
    const c = new BenchClient(origin, roomID);
    await new Promise<void>((resolve, reject) => {
      c.ws.on('message', function first(data) {
        if (!data.toString().startsWith('["connected"')) return;
        c.ws.off('message', first);
        resolve();
      });
      c.ws.on('error', reject);
      // A refused connect (an error frame, then the close) fails the bench instead of waiting forever.
      c.ws.on('close', (code, reason) => reject(new Error(`connect to ${roomID} closed (${code} ${reason.toString()})`)));
    });
    return c;
  }

  get inFlight(): number {
    return this.sent - this.lmid;
  }

  /** The push frame of one mutation; `argsJSON` is its arguments as JSON. */
  private frame(name: string, argsJSON: string): string {
    const n = ++this.sent;
    const text = `${this.framePrefix}${n}${this.mutationPrefix}${JSON.stringify(name)},"args":${argsJSON},"timestamp":0}],"pushVersion":1,"schemaVersion":"1","requestID":"r${n}"}]`;
    if (!this.checked) {
      this.checked = true;
      const m = { id: n, clientID: this.clientID, name, args: JSON.parse(argsJSON) as unknown, timestamp: 0 };
      const plain = JSON.stringify(['push', { timestamp: 0, clientGroupID: this.clientGroupID, mutations: [m], pushVersion: 1, schemaVersion: '1', requestID: `r${n}` }]);
      if (plain !== text) throw new Error(`bench push frame differs from JSON.stringify's: ${text} vs ${plain}`);
    }
    return text;
  }

  push(name: string, args: unknown): void {
    this.ws.send(this.frame(name, JSON.stringify(args)));
  }

  /** Pushes until `count` mutations are in flight, one frame each, all in one socket write. */
  fill(count: number, name: string, argsJSON: string): void {
    if (this.inFlight >= count) return;
    const socket = (this.ws as unknown as { _socket: Socket })._socket;
    socket.cork();
    while (this.inFlight < count) this.ws.send(this.frame(name, argsJSON));
    socket.uncork();
  }

  listen(fn: () => void): void {
    this.onPoke = fn;
  }

  nextPoke(): Promise<void> {
    return new Promise((resolve) => (this.onPoke = () => resolve()));
  }

  /** Pushes and resolves when this mutation is acknowledged. */
  roundTrip(name: string, args: unknown): Promise<void> {
    return new Promise((resolve) => {
      const target = this.sent + 1;
      this.onPoke = () => {
        if (this.lmid >= target) resolve();
      };
      this.push(name, args);
    });
  }

  close(): void {
    this.ws.close();
  }
}

async function pushRoundTrips(origin: string): Promise<number[]> {
  const c = await BenchClient.connect(origin, id('rtt'));
  const times: number[] = [];
  for (let i = 0; i < RTT_WARMUP + RTT_SAMPLES; i++) {
    const t0 = performance.now();
    await c.roundTrip('increment', { key: 'n', delta: 1 });
    if (i >= RTT_WARMUP) times.push(performance.now() - t0);
  }
  c.close();
  return times;
}

async function echoRoundTrips(url: string): Promise<number[]> {
  const ws = new WebSocket(url);
  await new Promise((resolve) => ws.on('open', resolve));
  const frame = JSON.stringify(['push', { timestamp: 0, clientGroupID: 'g', mutations: [{ id: 1, clientID: 'c', name: 'increment', args: { key: 'n', delta: 1 }, timestamp: 0 }], pushVersion: 1, schemaVersion: '1', requestID: 'r' }]);
  const times: number[] = [];
  for (let i = 0; i < RTT_WARMUP + RTT_SAMPLES; i++) {
    const t0 = performance.now();
    await new Promise<void>((resolve) => {
      ws.once('message', (d) => {
        JSON.parse(d.toString());
        resolve();
      });
      ws.send(frame);
    });
    if (i >= RTT_WARMUP) times.push(performance.now() - t0);
  }
  ws.close();
  return times;
}

async function fanOut(origin: string): Promise<number[]> {
  const roomID = id('fanout');
  const clients: BenchClient[] = [];
  for (let i = 0; i < FANOUT_CLIENTS; i++) clients.push(await BenchClient.connect(origin, roomID));
  const pusher = clients[0]!;
  const times: number[] = [];
  for (let i = 0; i < FANOUT_SAMPLES; i++) {
    const t0 = performance.now();
    const all = Promise.all(clients.map((c) => c.nextPoke()));
    pusher.push('put', { key: `k${i % 10}`, value: i });
    await all;
    times.push(performance.now() - t0);
  }
  for (const c of clients) c.close();
  return times;
}

/** CPU seconds (user + system) a process has used so far, from /proc; with `thread`, that thread's alone. */
function cpuSeconds(pid: number, thread?: number): number {
  const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** CPU seconds of a server: its process and its room processes, if any. */
function serverTreeCpuSeconds(pid: number): number {
  return treeCpuSeconds(pid).reduce((a, b) => a + b, 0);
}

/** CPU seconds of a process's main thread (its other threads: room workers, libuv, V8's). */
const mainThreadCpuSeconds = (pid: number): number => cpuSeconds(pid, pid);

/** One read buffer for every lean receiver: each chunk is looked at synchronously, then the buffer is reused. */
const RECEIVE_BUFFER = Buffer.alloc(4 * 1024 * 1024);

/**
 * A receiving-only WebSocket client on a raw TCP socket: it reads frame
 * headers and counts payload bytes without copying or decoding them (every
 * socket reads into one shared buffer, so no memory is allocated per chunk),
 * so the fan-out figure is the server's delivery, not this process's parsing.
 */
function leanReceiver(origin: string, path: string, onBigFrame: () => void): Promise<Socket> {
  const { hostname, port } = new URL(origin);
  let onChunk: (chunk: Buffer) => void = () => {};
  const socket = netConnect({
    port: Number(port),
    host: hostname,
    onread: {
      buffer: RECEIVE_BUFFER,
      callback: (bytes: number, buffer: Uint8Array) => {
        onChunk(Buffer.from(buffer.buffer, buffer.byteOffset, bytes));
        return true;
      },
    },
  });
  socket.setNoDelay(true);
  let head: Buffer = Buffer.alloc(0);
  let upgraded = false;
  /** Header bytes of a frame split across chunks. */
  let partial: Buffer | undefined;
  let need = 0;
  let big = false;
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('connect', () =>
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: bench\r\n\r\n',
      ),
    );
    onChunk = (chunk: Buffer) => {
      let data: Buffer = chunk;
      if (!upgraded) {
        head = Buffer.concat([head, data]);
        const end = head.indexOf('\r\n\r\n');
        if (end === -1) return;
        upgraded = true;
        data = head.subarray(end + 4);
        resolve(socket);
      }
      while (data.length > 0) {
        if (need > 0) {
          const take = Math.min(need, data.length);
          need -= take;
          data = data.subarray(take);
          if (need === 0 && big) onBigFrame();
          continue;
        }
        const buf: Buffer = partial === undefined ? data : Buffer.concat([partial, data]);
        partial = undefined;
        let len = buf.length < 2 ? -1 : buf[1]! & 0x7f;
        let at = 2;
        if (len === 126) [len, at] = buf.length < 4 ? [-1, 0] : [buf.readUInt16BE(2), 4];
        else if (len === 127) [len, at] = buf.length < 10 ? [-1, 0] : [Number(buf.readBigUInt64BE(2)), 10];
        if (len === -1) {
          partial = Buffer.from(buf);
          return;
        }
        big = len > BIG_FANOUT_BYTES;
        need = len;
        data = buf.subarray(at);
        if (need === 0 && big) onBigFrame();
      }
    };
  });
}

/** One push of a 100 KB value, timed until all 2,000 sockets of the room have its poke. */
async function bigFanOut(origin: string, serverPid: number): Promise<{ times: number[]; serverCpu: number; benchCpu: number; wall: number }> {
  const roomID = id('bigfan');
  let received = 0;
  let onFrame = () => {};
  const sockets: Socket[] = [];
  for (let i = 0; i < BIG_FANOUT_SOCKETS; i += CONNECT_BATCH) {
    const batch = Array.from({ length: Math.min(CONNECT_BATCH, BIG_FANOUT_SOCKETS - i) }, (_, k) => {
      const url = new URL(buildConnectURL(origin, { clientID: id(`f${i + k}`), clientGroupID: id('g'), roomID, baseCookie: null, ts: 0, lmid: 0, wsid: 'f'.repeat(21) }));
      return leanReceiver(origin, `${url.pathname}${url.search}`, () => {
        received++;
        onFrame();
      });
    });
    sockets.push(...(await Promise.all(batch)));
  }
  const pusher = await BenchClient.connect(origin, roomID);
  const value = 'x'.repeat(BIG_FANOUT_BYTES);
  const times: number[] = [];
  const cpu0 = serverTreeCpuSeconds(serverPid);
  const bench0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let i = 0; i < BIG_FANOUT_SAMPLES; i++) {
    received = 0;
    const t0 = performance.now();
    const all = new Promise<void>((resolve) => (onFrame = () => received === BIG_FANOUT_SOCKETS && resolve()));
    pusher.push('put', { key: 'big', value: `${i}${value}` });
    await all;
    times.push(performance.now() - t0);
  }
  const wall = (performance.now() - wall0) / 1000;
  const bench = process.cpuUsage(bench0);
  const serverCpu = serverTreeCpuSeconds(serverPid) - cpu0;
  for (const socket of sockets) socket.destroy();
  pusher.close();
  return { times, serverCpu, benchCpu: (bench.user + bench.system) / 1e6, wall };
}

/** The sustained period of a measured load: `edge` at its exact start and stop, then `done` once the mutations in flight at the stop are acknowledged. */
interface LoadWindow {
  readonly edge: WindowEdge;
  /** Mutations acknowledged within the period, and in all (the period and the drain after it). */
  done(inPeriod: number, all: number): void;
}

/** The longest wait for the mutations in flight at a measured period's stop. */
const DRAIN_MS = 10_000;

/**
 * Acknowledged mutations/s of `rooms` × `perRoom` clients, each keeping a few in flight. Clients go to
 * `origins` in turn; with `roomAffinity` all clients of a room go to the same one (rooms in turn).
 * With `window`, the measured period's edges are marked and the mutations in flight at its stop awaited.
 */
async function sustained(origin: string | readonly string[], rooms: number, perRoom: number, roomAffinity = false, ms = SUSTAIN_MS, window?: LoadWindow): Promise<number> {
  const origins = typeof origin === 'string' ? [origin] : origin;
  const clients: BenchClient[] = [];
  for (let r = 0; r < rooms; r++) {
    const roomID = id('load');
    for (let i = 0; i < perRoom; i++) clients.push(await BenchClient.connect(origins[(roomAffinity ? r : clients.length) % origins.length]!, roomID));
  }
  window?.edge('start');
  const start = performance.now();
  const base = clients.map((c) => c.lmid);
  let running = true;
  for (const [i, c] of clients.entries()) {
    const args = JSON.stringify({ key: `n${i % 4}`, delta: 1 });
    const refill = () => {
      if (running) c.fill(IN_FLIGHT_PER_CLIENT, 'increment', args);
    };
    c.listen(refill);
    refill();
  }
  await new Promise((resolve) => setTimeout(resolve, ms));
  running = false;
  window?.edge('stop');
  const elapsed = performance.now() - start;
  const done = clients.reduce((n, c, i) => n + c.lmid - base[i]!, 0);
  if (window !== undefined) {
    // The mutations in flight at the stop still make batches: wait for them, so batches per mutation are counted over whole batches.
    const deadline = performance.now() + DRAIN_MS;
    while (clients.some((c) => c.inFlight > 0) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    window.done(done, clients.reduce((n, c, i) => n + c.lmid - base[i]!, 0));
  }
  for (const c of clients) c.close();
  return done / (elapsed / 1000);
}

async function serverMemory(adminURL: string): Promise<string> {
  const res = await fetch(`${adminURL}/stats`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  type Memory = { rss: number; heapUsed: number };
  const { memory, processes = [] } = (await res.json()) as { memory: Memory; processes?: { memory?: Memory }[] };
  // With room processes: the acceptor's and every room process's.
  const all = [memory, ...processes.flatMap((p) => (p.memory === undefined ? [] : [p.memory]))];
  const sum = (k: keyof Memory) => all.reduce((n, m) => n + m[k], 0);
  return `rss ${fixed(sum('rss') / 2 ** 20, 0)} MiB, heap ${fixed(sum('heapUsed') / 2 ** 20, 0)} MiB${processes.length === 0 ? '' : ` (${processes.length} room processes and the acceptor)`}`;
}

/** The disk's share: one tiny SQLite commit with synchronous=FULL, timed in this process. */
function sqliteFullCommits(dir: string): number[] {
  const db = new Database(join(dir, 'fsync-probe.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)');
  const put = db.prepare('INSERT OR REPLACE INTO t VALUES (?, ?)');
  const commit = db.transaction((i: number) => put.run(`k${i % 10}`, 'v'));
  const times: number[] = [];
  for (let i = 0; i < FSYNC_SAMPLES; i++) {
    const t0 = performance.now();
    commit(i);
    times.push(performance.now() - t0);
  }
  db.close();
  return times;
}

const ms = (v: number) => `${fixed(v, 3)} ms`;

/** Push on one node → the poke of that write on a client of another node (same room), sequential samples. */
async function crossNodeRoundTrips(pushOrigin: string, watchOrigin: string): Promise<number[]> {
  const roomID = id('cross');
  const pusher = await BenchClient.connect(pushOrigin, roomID);
  const watcher = await BenchClient.connect(watchOrigin, roomID);
  const times: number[] = [];
  for (let i = 0; i < RTT_WARMUP + RTT_SAMPLES; i++) {
    const t0 = performance.now();
    const seen = watcher.nextPoke();
    pusher.push('put', { key: 'k', value: i });
    await seen;
    if (i >= RTT_WARMUP) times.push(performance.now() - t0);
    // The pusher's own poke too, so no push waits behind the last one.
    if (pusher.inFlight > 0) await new Promise<void>((resolve) => pusher.listen(() => pusher.inFlight === 0 && resolve()));
  }
  pusher.close();
  watcher.close();
  return times;
}

/** Busy and total CPU seconds of the whole machine (every core, every process: other work on it too), from /proc/stat. */
function machineCpuSeconds(): { busy: number; total: number } {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const n = ticks.map(Number);
  const idle = n[3]! + n[4]!; // idle + iowait
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0); // user nice system idle iowait irq softirq steal
  return { busy: (total - idle) / CLOCK_TICKS_PER_SECOND, total: total / CLOCK_TICKS_PER_SECOND };
}

/** CPU seconds of PostgreSQL: the postmaster, its finished children and its live ones (backends, workers). */
function postgresCpuSeconds(postmaster: number): number {
  const stat = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const own = stat(postmaster);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const f = stat(Number(entry));
      if (Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / CLOCK_TICKS_PER_SECOND;
}

/** Batches (room versions, each poked on its own) and storage commits the nodes made so far. */
async function batchesSoFar(nodes: readonly Child[]): Promise<{ batches: number; commits: number }> {
  const total = { batches: 0, commits: 0 };
  for (const n of nodes) {
    const res = await fetch(`${n.adminURL}/stats`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    const { counters } = (await res.json()) as { counters: { batches: number; commits: number } };
    total.batches += counters.batches;
    total.commits += counters.commits;
  }
  return total;
}

/**
 * Samples the roomsync sessions of PostgreSQL (state, wait event, statement) from its own connection until the
 * answer's function is called, which answers each kind's mean number of sessions in it, most first. The
 * sampler's own queries cost PostgreSQL some CPU: use it to see where a batch's time goes, not for the figures.
 */
async function sampleSessions(url: string): Promise<() => Promise<[string, number][]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const seen = new Map<string, number>();
  let samples = 0;
  let stopped = false;
  const sampling = (async () => {
    while (!stopped) {
      const { rows } = await client.query<{ state: string; wait: string | null; statement: string }>(
        "SELECT state, wait_event_type || ':' || wait_event AS wait, left(regexp_replace(query, '\\s+', ' ', 'g'), 40) AS statement FROM pg_stat_activity WHERE application_name LIKE 'roomsync %' AND state <> 'idle'",
      );
      samples++;
      for (const r of rows) {
        const kind = `${r.state} | ${r.wait ?? 'running'} | ${r.statement}`;
        seen.set(kind, (seen.get(kind) ?? 0) + 1);
      }
    }
  })();
  return async () => {
    stopped = true;
    await sampling;
    await client.end();
    return [...seen].map(([kind, n]): [string, number] => [kind, n / Math.max(1, samples)]).sort((a, b) => b[1] - a[1]);
  };
}

/** Every server the storage rows started: those a load does not use still run (polls, notifications), and count. */
const servers: Child[] = [];

/** CPU seconds of a process and its child processes (none with this repository's tsx, which transforms in-process; any a node starts counts): [main thread, its other threads, child processes]. */
function treeCpuSeconds(pid: number): [main: number, threads: number, children: number] {
  const [, ...descendants] = processTree(pid, (path) => readFileSync(path, 'utf8'), (dir) => readdirSync(dir));
  let children = 0;
  for (const d of descendants) {
    try {
      children += cpuSeconds(d);
    } catch {
      // ended meanwhile: a child that ends within the period is not counted
    }
  }
  const main = mainThreadCpuSeconds(pid);
  return [main, cpuSeconds(pid) - main, children];
}

/** The CPU counters of every process a load concerns, read at one moment. */
interface CpuSnapshot {
  readonly time: number;
  readonly nodes: [number, number, number][];
  readonly idle: number;
  readonly postgres: number;
  readonly bench: NodeJS.CpuUsage;
  readonly machine: { busy: number; total: number };
}

/**
 * One sustained run with the CPU of every process (the servers the load does not use too, each with its child processes)
 * over the sustained period alone: read at its exact start and stop (not while the clients connect or the /stats calls
 * run); `onEdge` is called right after each reading. Batches and commits: per mutation over the period and the drain of
 * the mutations in flight at its stop (whole batches), times the period's mutations/s.
 */
async function measuredLoad(nodes: readonly Child[], postmaster: number | undefined, run: (window: LoadWindow) => Promise<number>, onEdge?: WindowEdge): Promise<LoadFigures> {
  const idle = servers.filter((s) => !nodes.includes(s));
  const snapshot = (): CpuSnapshot => ({
    time: performance.now(),
    nodes: nodes.map((n) => treeCpuSeconds(n.proc.pid!)),
    idle: idle.reduce((sum, n) => sum + treeCpuSeconds(n.proc.pid!).reduce((a, b) => a + b, 0), 0),
    postgres: postmaster === undefined ? 0 : postgresCpuSeconds(postmaster),
    bench: process.cpuUsage(),
    machine: machineCpuSeconds(),
  });
  const at: { start?: CpuSnapshot; stop?: CpuSnapshot } = {};
  let inPeriod = 0;
  let all = 0;
  const before = await batchesSoFar(nodes);
  const mutations = await run({
    edge: (e) => {
      at[e] = snapshot();
      onEdge?.(e);
    },
    done: (period, total) => ((inPeriod = period), (all = total)),
  });
  const after = await batchesSoFar(nodes);
  const { start, stop } = at as Required<typeof at>;
  const wall = (stop.time - start.time) / 1000;
  const pct = (seconds: number) => `${fixed((100 * seconds) / wall, 0)}%`;
  const nodeParts = stop.nodes.map((n, i) => n.map((v, k) => v - start.nodes[i]![k]!) as [number, number, number]);
  const nodeSeconds = nodeParts.map(([main, threads, children]) => main + threads + children);
  const pgSeconds = stop.postgres - start.postgres;
  const benchSeconds = (stop.bench.user - start.bench.user + stop.bench.system - start.bench.system) / 1e6;
  const idleSeconds = stop.idle - start.idle;
  // Each node as total (main thread + its other threads: room workers, libuv, GC + its child processes, if any).
  const perNode = nodeParts.map(([main, threads, children], i) => `${pct(nodeSeconds[i]!)} (${fixed((100 * main) / wall, 0)}+${fixed((100 * threads) / wall, 0)}+${fixed((100 * children) / wall, 0)})`);
  const parts = [`node${nodes.length > 1 ? 's' : ''} ${perNode.join(' / ')}`];
  if (postmaster !== undefined) parts.push(`PostgreSQL ${pct(pgSeconds)}`);
  parts.push(`bench ${pct(benchSeconds)}`);
  if (idle.length > 0) parts.push(`${idle.length} servers not in the load ${pct(idleSeconds)}`);
  const totalCpu = (100 * (nodeSeconds.reduce((a, b) => a + b, 0) + pgSeconds + benchSeconds + idleSeconds)) / wall;
  const machineCpu = (100 * CORES * (stop.machine.busy - start.machine.busy)) / (stop.machine.total - start.machine.total);
  // The period's share of the mutations the batches counted hold (the rest were in flight at its stop).
  const periodShare = inPeriod / Math.max(1, all);
  return {
    mutations,
    batches: ((after.batches - before.batches) * periodShare) / wall,
    commits: ((after.commits - before.commits) * periodShare) / wall,
    cpu: parts.join(', '),
    nodeCpu: nodeSeconds.map((t) => (100 * t) / wall),
    postgresCpu: (100 * pgSeconds) / wall,
    benchCpu: (100 * benchSeconds) / wall,
    idleCpu: (100 * idleSeconds) / wall,
    totalCpu,
    machineCpu,
  };
}

/** The storages side by side: SQLite (one node) and PostgreSQL (one and three nodes). */
async function runStorageRows(dataDir: string, echoP50: number): Promise<void> {
  const postgres: PostgresServer = await startPostgres({ settings: PG_SETTINGS });
  const nodes: Child[] = [];
  try {
    const databaseURL = await postgres.createDatabase('bench');
    // Every sustained run makes 50 fresh rooms from this one address: repeated rounds would pass the default 100 per hour and hang on a refused connect.
    const roomQuota = ['--rooms-per-address', '100000', '--rooms-per-user', '100000'];
    for (let i = 0; i < 3; i++) nodes.push(await startServer(['--postgres', databaseURL, ...roomQuota]));
    const sqlite = await startServer(['--data-dir', join(dataDir, 'rows')]);
    nodes.push(sqlite);
    servers.push(...nodes);
    const [a, b, c] = nodes as [Child, Child, Child];
    if (ONLY_HOT_ROWS) {
      const hot: [string, LoadFigures][] = [
        [`1 hot room × ${HOT_ROOM_CLIENTS} clients, SQLite, 1 node`, await measuredLoad([sqlite], undefined, (w) => sustained(sqlite.url, 1, HOT_ROOM_CLIENTS, false, SUSTAIN_MS, w))],
        [`1 hot room × ${HOT_ROOM_CLIENTS} clients, PostgreSQL, 1 node`, await measuredLoad([a], postgres.pid(), (w) => sustained(a.url, 1, HOT_ROOM_CLIENTS, false, SUSTAIN_MS, w))],
        [`1 hot room × ${HOT_ROOM_CLIENTS} clients, PostgreSQL, 3 nodes`, await measuredLoad([a, b, c], postgres.pid(), (w) => sustained([a.url, b.url, c.url], 1, HOT_ROOM_CLIENTS, false, SUSTAIN_MS, w))],
      ];
      printTable(`server: sustained hot room, ${SUSTAIN_MS / 1000} s, ${IN_FLIGHT_PER_CLIENT} in flight per client`, ['load', 'mutations/s', 'batches/s', 'commits/s', 'CPU/mutation', 'CPU used', 'CPU (% of one core per process; a node: main thread + other threads)'], hot.map(([name, f]) => [name, fixed(f.mutations, 0), fixed(f.batches, 0), fixed(f.commits, 0), cpuPerMutation(f), cpuBound(f), f.cpu]));
      if (PG_WAITS) {
        const answer = await sampleSessions(databaseURL);
        const f = await measuredLoad([a, b, c], postgres.pid(), (w) => sustained([a.url, b.url, c.url], 1, HOT_ROOM_CLIENTS, false, SUSTAIN_MS, w));
        const kinds = (await answer()).slice(0, 12);
        // Sessions in a kind on average ÷ batches/s = its time per batch (the lock's holder is one session at a time).
        printTable(`PostgreSQL sessions during the 3-node hot room (sampled; ${fixed(f.batches, 0)} batches/s with the sampler on)`, ['state | wait | statement', 'sessions', 'ms per batch'], kinds.map(([kind, n]) => [kind, fixed(n, 3), fixed((1000 * n) / f.batches, 2)]));
      }
      return;
    }
    if (ONLY_CROSS_ROWS) {
      const rows: string[][] = [];
      for (let round = 1; round <= CROSS_ROUNDS; round++) {
        const own = await pushRoundTrips(a.url);
        const cross = await crossNodeRoundTrips(a.url, b.url);
        for (const [name, t] of [['push → own poke (node A of 3)', own], ['push → poke on another node (A → B)', cross]] as const) {
          rows.push([`round ${round}: ${name}`, ms(percentile(t, 50)), ms(percentile(t, 99)), `${fixed(percentile(t, 50) / echoP50, 1)}×`]);
        }
      }
      printTable(`server on PostgreSQL: round trips, ${RTT_SAMPLES} sequential samples per round (target: cross-node p50 < 3 ms)`, ['what', 'p50', 'p99', 'p50 vs echo'], rows);
      return;
    }
    if (ONLY_CLUSTER_ROWS) {
      const origins = [a.url, b.url, c.url];
      const run = (load: ClusterLoad, ms = SUSTAIN_MS, window?: LoadWindow) => sustained(load === 'one' ? a.url : origins, 50, 2, load === 'rooms', ms, window);
      await runClusterRows(
        {
          nodePids: [a, b, c].map((n) => n.proc.pid!),
          measure: (load, edge) => measuredLoad(load === 'one' ? [a] : [a, b, c], postgres.pid(), (w) => run(load, SUSTAIN_MS, w), edge),
          warmUp: async (load) => void (await run(load, WARM_UP_MS)),
        },
        { rounds: CLUSTER_ROUNDS, loads: CLUSTER_LOADS, nodeCpu: NODE_CPU, periodMs: NODE_CPU_PERIOD_MS, what: `50 rooms × 2 clients, sustained, ${SUSTAIN_MS / 1000} s, ${IN_FLIGHT_PER_CLIENT} in flight per client` },
      );
      return;
    }
    const own = await pushRoundTrips(a.url);
    const cross = await crossNodeRoundTrips(a.url, b.url);
    const sqliteOwn = await pushRoundTrips(sqlite.url);
    const row = (name: string, t: number[]) => [name, ms(percentile(t, 50)), ms(percentile(t, 99)), `${fixed(percentile(t, 50) / echoP50, 1)}×`];
    printTable(`server on PostgreSQL: round trips, ${RTT_SAMPLES} sequential samples (target: cross-node p50 < 3 ms)`, ['what', 'p50', 'p99', 'p50 vs echo'], [
      row('push → own poke, SQLite FULL (1 node)', sqliteOwn),
      row('push → own poke, PostgreSQL (node A of 3)', own),
      row('push → poke on another node (A → B)', cross),
    ]);
    const pgPid = postgres.pid();
    const loads: [string, LoadFigures][] = [
      [`1 hot room × ${HOT_ROOM_CLIENTS} clients, SQLite, 1 node`, await measuredLoad([sqlite], undefined, (w) => sustained(sqlite.url, 1, HOT_ROOM_CLIENTS, false, SUSTAIN_MS, w))],
      [`1 hot room × ${HOT_ROOM_CLIENTS} clients, PostgreSQL, 1 node`, await measuredLoad([a], pgPid, (w) => sustained(a.url, 1, HOT_ROOM_CLIENTS, false, SUSTAIN_MS, w))],
      [`1 hot room × ${HOT_ROOM_CLIENTS} clients, PostgreSQL, 3 nodes`, await measuredLoad([a, b, c], pgPid, (w) => sustained([a.url, b.url, c.url], 1, HOT_ROOM_CLIENTS, false, SUSTAIN_MS, w))],
      ['50 rooms × 2 clients, SQLite, 1 node', await measuredLoad([sqlite], undefined, (w) => sustained(sqlite.url, 50, 2, false, SUSTAIN_MS, w))],
      ['50 rooms × 2 clients, PostgreSQL, 1 node', await measuredLoad([a], pgPid, (w) => sustained(a.url, 50, 2, false, SUSTAIN_MS, w))],
      ['50 rooms × 2 clients, PostgreSQL, 3 nodes, rooms spread', await measuredLoad([a, b, c], pgPid, (w) => sustained([a.url, b.url, c.url], 50, 2, true, SUSTAIN_MS, w))],
      ['50 rooms × 2 clients, PostgreSQL, 3 nodes, clients spread', await measuredLoad([a, b, c], pgPid, (w) => sustained([a.url, b.url, c.url], 50, 2, false, SUSTAIN_MS, w))],
    ];
    const oneNode = loads[4]![1].mutations;
    printTable(
      `server on PostgreSQL: sustained, ${SUSTAIN_MS / 1000} s, ${IN_FLIGHT_PER_CLIENT} in flight per client (targets: hot room > 1,000 batches/s; 50 rooms on 3 nodes ≥ 1.5× 1 node)`,
      ['load', 'mutations/s', 'batches/s', 'commits/s', 'vs 1 node', 'CPU/mutation', 'CPU used', 'CPU (% of one core per process; a node: main thread + other threads)'],
      loads.map(([name, f]) => [name, fixed(f.mutations, 0), fixed(f.batches, 0), fixed(f.commits, 0), name.startsWith('50 rooms') && name.includes('PostgreSQL') ? `${fixed(f.mutations / oneNode, 2)}×` : '', cpuPerMutation(f), cpuBound(f), f.cpu]),
    );
  } finally {
    servers.length = 0;
    for (const n of nodes) await stop(n);
    await postgres.stop();
  }
}

/** The server bench, with its exit and signal handlers installed only while it runs (later benches of `npm run bench` keep theirs). */
export async function runServerBench(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'roomsync-bench-'));
  // Also when Ctrl+C ends the bench (its children are killed first).
  const removeDataDir = () => {
    try {
      rmSync(dataDir, { recursive: true, force: true });
    } catch {
      // a killed server still writing: the temporary directory stays
    }
  };
  process.on('exit', killChildren);
  process.on('exit', removeDataDir);
  for (const [signal, handler] of exitOnSignal) process.on(signal, handler);
  try {
    await serverBench(dataDir);
  } finally {
    for (const [signal, handler] of exitOnSignal) process.off(signal, handler);
    process.off('exit', removeDataDir);
    process.off('exit', killChildren);
    killChildren();
    removeDataDir();
  }
}

async function serverBench(dataDir: string): Promise<void> {
  const echo = await startEcho();
  if (ONLY_BIG_FANOUT) {
    const rows: string[][] = [];
    try {
      for (let run = 1; run <= BIG_FANOUT_RUNS; run++) {
        const server = await startServer(['--data-dir', join(dataDir, `fanout-${run}`), ...FANOUT_CLIENT_BUDGET]);
        try {
          const big = await bigFanOut(server.url, server.proc.pid!);
          rows.push([`run ${run}`, ms(percentile(big.times, 50)), ms(percentile(big.times, 99)), ms((1000 * big.serverCpu) / BIG_FANOUT_SAMPLES), `server ${fixed((100 * big.serverCpu) / big.wall, 0)}%, client ${fixed((100 * big.benchCpu) / big.wall, 0)}%`]);
        } finally {
          await stop(server);
        }
      }
      printTable(`server: 100 KB value → last of ${BIG_FANOUT_SOCKETS} sockets, ${BIG_FANOUT_SAMPLES} samples per run (target ≤ 170 ms, 5× the 849 ms before)`, ['run', 'p50', 'p99', 'server CPU each', 'CPU while measuring'], rows);
    } finally {
      await stop(echo);
      rmSync(dataDir, { recursive: true, force: true });
    }
    return;
  }
  if (ONLY_STORAGE_ROWS) {
    try {
      await runStorageRows(dataDir, percentile(await echoRoundTrips(echo.url), 50));
    } finally {
      await stop(echo);
      rmSync(dataDir, { recursive: true, force: true });
    }
    return;
  }
  // The fan-out and sustained rows' server starts after the round trips: no idle process of another row runs while they are measured.
  let full: Child | undefined;
  try {
    const echoTimes = await echoRoundTrips(echo.url);
    const inMain = await startServer(['--data-dir', join(dataDir, 'main-thread'), '--room-workers', '0']);
    const inWorkers = await startServer(['--data-dir', join(dataDir, 'workers'), '--room-workers', String(Math.max(2, availableParallelism()))]);
    const baseline = RTT_BASELINE_DIR === undefined ? undefined : await startServer(['--data-dir', join(dataDir, 'baseline')], RTT_BASELINE_DIR);
    // The default flags alone (`full` takes a bigger new-client budget for the fan-out).
    const byDefault = await startServer(['--data-dir', join(dataDir, 'default')]);
    const series = [
      { name: 'default (room processes)', server: byDefault },
      { name: 'rooms in workers', server: inWorkers },
      { name: 'in the main thread', server: inMain },
      ...(baseline === undefined ? [] : [{ name: 'baseline checkout', server: baseline }]),
    ].map((s) => ({ ...s, rounds: [] as number[][] }));
    // Unmeasured first: every server (each of its room processes, with rooms that hash to either) warmed up alike.
    for (const s of series) for (let i = 0; i < RTT_WARMUP_ROOMS; i++) await pushRoundTrips(s.server.url);
    // Round by round, each server is measured in each place and right after each other one equally often (balancedOrders).
    const orders = balancedOrders(series.length);
    const firstOf: string[] = [];
    for (let round = 0; round < RTT_ROUNDS; round++) {
      const order = orders[round % orders.length]!;
      firstOf.push(series[order[0]!]!.name);
      for (const i of order) series[i]!.rounds.push(await pushRoundTrips(series[i]!.server.url));
    }
    if (baseline !== undefined) await stop(baseline);
    await stop(inWorkers);
    await stop(inMain);
    await stop(byDefault);
    const normal = await startServer(['--data-dir', join(dataDir, 'normal'), '--synchronous', 'NORMAL']);
    const normalTimes = await pushRoundTrips(normal.url);
    await stop(normal);
    const memory = await startServer(['--memory']);
    const memoryTimes = await pushRoundTrips(memory.url);
    await stop(memory);
    const commitTimes = sqliteFullCommits(dataDir);
    const p50echo = percentile(echoTimes, 50);
    const row = (name: string, t: number[]) => [name, ms(percentile(t, 50)), ms(percentile(t, 99)), `${fixed(percentile(t, 50) / p50echo, 1)}×`];
    const roundsRow = (name: string, rounds: number[][]) => {
      const p50 = median(rounds.map((t) => percentile(t, 50)));
      return [name, ms(p50), ms(median(rounds.map((t) => percentile(t, 99)))), `${fixed(p50 / p50echo, 1)}×`];
    };
    const of = RTT_ROUNDS === 1 ? '' : ` (medians of ${RTT_ROUNDS} alternating rounds)`;
    const [defaults, workers, main, base] = series;
    printTable(`server: round trip on loopback, ${RTT_SAMPLES} sequential samples (target p50 < 2 ms)`, ['what', 'p50', 'p99', 'p50 vs echo'], [
      row('raw ws echo (child process)', echoTimes),
      roundsRow(`push → own poke, SQLite FULL${of}`, defaults!.rounds),
      row('push → own poke, SQLite NORMAL', normalTimes),
      row('push → own poke, memory storage (rooms in workers)', memoryTimes),
      roundsRow(`push → own poke, SQLite FULL, rooms in workers${of}`, workers!.rounds),
      roundsRow(`push → own poke, SQLite FULL, rooms in the main thread${of}`, main!.rounds),
      ...(base === undefined ? [] : [roundsRow(`push → own poke, SQLite FULL, baseline checkout${of}`, base.rounds)]),
      row('(one SQLite FULL commit alone)', commitTimes),
    ]);
    if (RTT_ROUNDS > 1) {
      const p50 = (s: (typeof series)[number], i: number) => percentile(s.rounds[i]!, 50);
      printTable(
        'server: push → own poke p50 per round, SQLite FULL',
        ['round', ...series.map((s) => s.name), ...(base === undefined ? [] : series.slice(0, -1).map((s) => `${s.name} − baseline`))],
        defaults!.rounds.map((_, i) => [
          `${i + 1} (${firstOf[i]} first)`,
          ...series.map((s) => ms(p50(s, i))),
          ...(base === undefined ? [] : series.slice(0, -1).map((s) => ms(p50(s, i) - p50(base, i)))),
        ]),
      );
    }
    if (ONLY_RTT_ROWS) return;

    full = await startServer(['--data-dir', join(dataDir, 'full'), ...FANOUT_CLIENT_BUDGET]);
    const fan = await fanOut(full.url);
    const big = await bigFanOut(full.url, full.proc.pid!);
    const cores = `server ${fixed((100 * big.serverCpu) / big.wall, 0)}% of a core, this (client) process ${fixed((100 * big.benchCpu) / big.wall, 0)}%`;
    const serverCpuPerFanOut = ms((1000 * big.serverCpu) / BIG_FANOUT_SAMPLES);
    printTable(`server: poke fan-out, one push → all clients of a room poked`, ['what', 'p50', 'p99', 'server CPU each', 'CPU while measuring'], [
      [`push → last of ${FANOUT_CLIENTS} pokes (${FANOUT_SAMPLES} samples)`, ms(percentile(fan, 50)), ms(percentile(fan, 99)), '', ''],
      [`100 KB value → last of ${BIG_FANOUT_SOCKETS} sockets (${BIG_FANOUT_SAMPLES} samples)`, ms(percentile(big.times, 50)), ms(percentile(big.times, 99)), serverCpuPerFanOut, cores],
    ]);

    const one = await sustained(full.url, 1, 50);
    const oneMem = await serverMemory(full.adminURL!);
    const many = await sustained(full.url, 50, 2);
    const manyMem = await serverMemory(full.adminURL!);
    printTable(`server: sustained acknowledged mutations/s, ${SUSTAIN_MS / 1000} s, ${IN_FLIGHT_PER_CLIENT} in flight per client, SQLite FULL`, ['load', 'mutations/s', 'server memory after'], [
      ['1 room × 50 clients', fixed(one, 0), oneMem],
      ['50 rooms × 2 clients', fixed(many, 0), manyMem],
    ]);

    await runStorageRows(dataDir, p50echo);
  } finally {
    if (full !== undefined) await stop(full);
    await stop(echo);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
