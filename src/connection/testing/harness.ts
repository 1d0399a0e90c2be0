import { Logger } from '../../logging/logger';
import type { LogLevel, LogSink } from '../../logging/log-sink';
import { RecordingMetrics } from '../../metrics/recording-metrics';
import type { AuthOption } from '../auth';
import { Connection, type ConnectionOptions, type UpdateNeededReason } from '../connection';
import type { PushLimits } from '../push-limits';
import { FakeClock, flushMicrotasks } from './fake-clock';
import { FakeSocketServer } from './fake-socket';
import { ManualSource } from './manual-source';
import { ModelSyncTarget } from './model-sync-target';

export const CLIENT_ID = 'client-1';
export const CLIENT_GROUP_ID = 'group-1';
export const ROOM_ID = 'room-1';
export const SOCKET_ORIGIN = 'ws://sync.test';

export interface HarnessOptions {
  readonly auth?: AuthOption;
  readonly visible?: boolean;
  readonly pushDelayMs?: number;
  readonly start?: boolean;
  /** @default seededRandom(1) */
  readonly random?: () => number;
  /** @default DEFAULT_PUSH_LIMITS */
  readonly pushLimits?: PushLimits;
}

/** A Connection wired to a fake clock, in-memory sockets, manual sources and a model store. */
export class Harness {
  readonly clock = new FakeClock();
  readonly server = new FakeSocketServer(() => this.clock.now());
  readonly visibility: ManualSource;
  readonly network = new ManualSource(true);
  readonly target = new ModelSyncTarget(CLIENT_ID, () => this.clock.now());
  readonly metrics = new RecordingMetrics();
  readonly logs: { level: LogLevel; args: unknown[] }[] = [];
  readonly onlineChanges: boolean[] = [];
  readonly updateNeeded: UpdateNeededReason[] = [];
  clientStateNotFound = 0;
  readonly connection: Connection;

  constructor(options: HarnessOptions = {}) {
    this.visibility = new ManualSource(options.visible ?? true);
    const sink: LogSink = { log: (level, _context, ...args) => this.logs.push({ level, args }) };
    const connectionOptions: ConnectionOptions = {
      socketOrigin: SOCKET_ORIGIN,
      clientID: CLIENT_ID,
      clientGroupID: CLIENT_GROUP_ID,
      roomID: ROOM_ID,
      schemaVersion: '1',
      auth: options.auth,
      syncTarget: this.target,
      environment: {
        clock: this.clock,
        timers: this.clock,
        random: options.random ?? seededRandom(1),
        WebSocket: this.server.WebSocket,
        visibility: this.visibility,
        network: this.network,
      },
      logger: new Logger('debug', [sink]),
      metrics: this.metrics,
      ...(options.pushDelayMs === undefined ? {} : { pushDelayMs: options.pushDelayMs }),
      ...(options.pushLimits === undefined ? {} : { pushLimits: options.pushLimits }),
      onOnlineChange: (online) => this.onlineChanges.push(online),
      onUpdateNeeded: (reason) => this.updateNeeded.push(reason),
      onClientStateNotFound: () => this.clientStateNotFound++,
    };
    this.connection = new Connection(connectionOptions);
    if (options.start ?? true) this.connection.start();
  }

  get sockets() {
    return this.server.sockets;
  }

  get socket() {
    return this.server.last;
  }

  /** Lets pending promise work (token fetch, socket creation, poke application) finish. */
  settle(): Promise<void> {
    return this.clock.advance(0);
  }

  /** Opens the last socket and answers `connected`. */
  async connectLast(): Promise<void> {
    await this.settle();
    this.socket.connect();
    await this.settle();
  }

  /** The first argument of every line logged at `level`. */
  linesAt(level: LogLevel): string[] {
    return this.logs.filter((line) => line.level === level).map((line) => String(line.args[0]));
  }

  errorLines(): string[] {
    return this.linesAt('error');
  }

  /** The errors of the failed attempts to connect, in order (logged as `Could not connect: kind` with the error). */
  connectErrors(): unknown[] {
    return this.logs.filter((line) => String(line.args[0]).startsWith('Could not connect: ')).map((line) => line.args[1]);
  }

  /** The error the client stopped connecting with (logged as `Stopped connecting: reason` with the error), the last one. */
  haltError(): unknown {
    return this.logs.filter((line) => String(line.args[0]).startsWith('Stopped connecting: ')).at(-1)?.args[1];
  }
}

/** A deterministic Math.random stand-in (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export { flushMicrotasks };
