#!/usr/bin/env node
/**
 * `roomsync-server [options]` (from the repository `npm run server -- [options]`): the reference server with SQLite storage
 * (or PostgreSQL with --postgres URL / DATABASE_URL, for several nodes),
 * JSON logs on stderr and graceful shutdown on SIGTERM/SIGINT.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliUsageError, parseCliArgs, USAGE, type CliOptions } from './cli-args';
import { cliServerConfig, roomProcessesFor, type CliServerConfig } from './cli-config';
import type { MutatorDefs } from '../src/db/transaction-types';
import { createServer, type ListeningInfo, type MutatorsModule } from './index';
import { systemClock, systemTimers } from './clock';
import { LocalRoomWindows } from './room-quota';
import { createAcceptor } from './processes/acceptor';
import { MutationDeadlines } from './engine/mutation-deadlines';
import { roomProcessGuard } from './processes/process-guard';
import { ROOM_PROCESS_ENV } from './processes/process-protocol';
import { runRoomProcess } from './processes/room-process';
import { RoomProcessPool } from './processes/room-process-pool';
import { createJSONLogger, type Logger } from './logger';
import { DEFAULT_MUTATOR_TIMEOUT_MS, DEFAULT_ROOM_QUOTA_WINDOW_MS, DEFAULT_ROOMS_PER_ADDRESS, DEFAULT_ROOMS_PER_USER } from './limits';
import { MemoryStorage } from './storage/memory-storage';
import { DEFAULT_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS, PostgresStorage, redactURL } from './storage/postgres/postgres-storage';
import { SqliteStorage } from './storage/sqlite-storage';

const DATABASE_FILE = 'roomsync.sqlite';
const ADMIN_KEY_FILE = 'admin.key';
const ADMIN_KEY_BYTES = 24;

function usageExit(error: unknown): never {
  if (!(error instanceof CliUsageError)) throw error;
  process.stderr.write(`${error.message}\n${USAGE}\n`);
  process.exit(2);
}

/** A key kept in the data directory (readable by its owner only), made on first start. */
function storedAdminKey(dataDir: string): { key: string; path: string } {
  const path = resolve(join(dataDir, ADMIN_KEY_FILE));
  if (existsSync(path)) return { key: readFileSync(path, 'utf8').trim(), path };
  const key = randomBytes(ADMIN_KEY_BYTES).toString('base64url');
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  return { key, path };
}

/** The app's mutators from their module: an object of functions under the export named. */
async function loadMutators(module: MutatorsModule): Promise<MutatorDefs> {
  const exportName = module.exportName ?? 'mutators';
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(module.url)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const hint =
      code === 'ERR_UNKNOWN_FILE_EXTENSION'
        ? ' (a TypeScript module needs a loader: node --import tsx $(command -v roomsync-server) …, or compile it to .js)'
        : '';
    throw new Error(`cannot load the mutators module ${module.url}: ${(error as Error).message}${hint}`);
  }
  const found = loaded[exportName];
  if (typeof found !== 'object' || found === null || !Object.values(found).every((f) => typeof f === 'function')) {
    throw new Error(`${module.url} has no export "${exportName}" holding mutators (an object of functions); its exports: ${Object.keys(loaded).join(', ') || 'none'}`);
  }
  return found as MutatorDefs;
}

async function main(): Promise<void> {
  let opts;
  let config;
  try {
    opts = parseCliArgs(process.argv.slice(2));
    if (opts.help) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    config = cliServerConfig(opts, process.env, process.cwd());
  } catch (error) {
    usageExit(error);
  }
  const roomProcessSlot = process.env[ROOM_PROCESS_ENV];
  const roomProcess = roomProcessSlot !== undefined;
  // A room process's lines say which one it is.
  const fields = roomProcess ? { roomProcess: Number(roomProcessSlot), pid: process.pid } : undefined;
  const logger = createJSONLogger({ level: opts.logLevel, write: (line) => process.stderr.write(line), now: Date.now, ...(fields === undefined ? {} : { fields }) });
  process.on('unhandledRejection', (error) => logger.error('unhandled rejection', { error }));
  if (!roomProcess) for (const warning of config.warnings) logger.warn(warning);

  // Loaded here first (the room workers load it again), so a wrong path, export or file type stops the start with its reason.
  let appMutators: MutatorDefs;
  try {
    appMutators = await loadMutators(config.mutatorsModule);
  } catch (error) {
    process.stderr.write(`roomsync server could not start: ${(error as Error).message}\n`);
    process.exit(1);
  }

  const postgresURL = opts.postgres ?? (opts.localStorageGiven ? undefined : process.env.DATABASE_URL || undefined);
  const mutatorTimeoutMs = opts.limits.mutatorTimeoutMs ?? DEFAULT_MUTATOR_TIMEOUT_MS;
  const roomProcesses = roomProcessesFor(opts, postgresURL !== undefined);
  if (roomProcesses > 0 && !roomProcess) {
    if (postgresURL === undefined && opts.dataDir === undefined) {
      usageExit(new CliUsageError('--room-processes needs --data-dir or --postgres: rooms kept in memory would be lost with their process'));
    }
    // The SQLite file is made (WAL, schema) once here: room processes opening it together could each find the other changing it.
    if (postgresURL === undefined) await openSqlite(opts, logger).close();
    return runAcceptor(opts, roomProcesses, config, postgresURL, logger);
  }

  let storage;
  if (postgresURL !== undefined) {
    try {
      storage = await PostgresStorage.open({
        connectionString: postgresURL,
        ...(opts.pgPoolSize === undefined ? {} : { poolSize: opts.pgPoolSize }),
        // A stuck mutator is stopped first; PostgreSQL ends the idle transaction only if that did not happen.
        idleInTransactionTimeoutMs: Math.max(DEFAULT_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS, 2 * mutatorTimeoutMs),
        logger,
      });
    } catch (error) {
      process.stderr.write(`roomsync server could not start: ${(error as Error).message}\n`);
      process.exit(1);
    }
    logger.info('storage opened', { postgres: redactURL(postgresURL), node: storage.nodeID });
  } else if (opts.dataDir === undefined) {
    storage = new MemoryStorage();
  } else {
    storage = openSqlite(opts, logger);
  }
  if (roomProcess) {
    const options = { ...config.options, mutators: appMutators, storage, logger };
    const deadlines = new MutationDeadlines(systemTimers, mutatorTimeoutMs);
    return runRoomProcess({
      start: (board, stuck, roomWindows) =>
        createServer(options, { guardFor: (roomID) => roomProcessGuard(roomID, board, stuck, deadlines, mutatorTimeoutMs), socketsCounted: true, roomWindows }),
      mutatorTimeoutMs,
      logger,
    });
  }
  const { key: adminKey, note: adminKeyNote } = adminKeyOf(opts, config, postgresURL);
  const inMainThread = opts.roomWorkers === 0;
  const mutators = inMainThread ? { mutators: appMutators } : { mutatorsModule: config.mutatorsModule };
  const server = createServer({ ...config.options, ...mutators, storage, logger, ...(adminKey === undefined ? {} : { adminKey }) });
  await serve(server, opts, config, adminKey, adminKeyNote, { roomsIn: inMainThread ? 'main thread' : 'worker threads' }, logger);
}

/** Listens, prints where (and the admin key's note), logs it, and shuts down gracefully on signals; exits 1 when it cannot listen. */
async function serve(
  front: { listen(port: number, host: string): Promise<ListeningInfo>; close(): Promise<void> },
  opts: CliOptions,
  config: CliServerConfig,
  adminKey: string | undefined,
  adminKeyNote: string | undefined,
  fields: Record<string, unknown>,
  logger: Logger,
): Promise<void> {
  let listening: ListeningInfo;
  try {
    listening = await front.listen(opts.port, opts.host);
  } catch (error) {
    process.stderr.write(`roomsync server could not start: ${(error as Error).message}\n`);
    await front.close().catch(() => {});
    process.exit(1);
  }
  announce(listening, adminKeyNote);
  logger.info('listening', {
    url: listening.url,
    adminURL: listening.adminURL,
    requireRooms: opts.requireRooms,
    auth: opts.auth.kind,
    production: isProduction(opts),
    mutators: config.mutatorsModule.url,
    ...fields,
    adminAPI: adminKey !== undefined,
  });
  stopOnSignals(() => front.close(), logger);
}

/** The SQLite storage in the data directory (made when missing). */
function openSqlite(opts: CliOptions, logger: Logger): SqliteStorage {
  mkdirSync(opts.dataDir!, { recursive: true });
  const path = resolve(join(opts.dataDir!, DATABASE_FILE));
  const storage = new SqliteStorage({ path, synchronous: opts.synchronous });
  logger.info('storage opened', { path, synchronous: opts.synchronous });
  return storage;
}

function isProduction(opts: CliOptions): boolean {
  return opts.production || process.env.NODE_ENV === 'production';
}

/** The admin key: given, else (not in production) one kept in the data directory or made for this run, with where to find it. */
function adminKeyOf(opts: CliOptions, config: CliServerConfig, postgresURL: string | undefined): { key: string | undefined; note: string | undefined } {
  const given = config.adminKey?.key;
  if (given !== undefined || isProduction(opts)) return { key: given, note: undefined };
  // Several nodes on PostgreSQL need one key given to all of them (ROOMSYNC_ADMIN_KEY); without one each makes its own.
  if (opts.dataDir !== undefined && postgresURL === undefined) {
    mkdirSync(opts.dataDir, { recursive: true });
    const stored = storedAdminKey(opts.dataDir);
    return { key: stored.key, note: `admin key in ${stored.path}` };
  }
  const key = randomBytes(ADMIN_KEY_BYTES).toString('base64url');
  return { key, note: `admin key: ${key}` };
}

function announce(listening: ListeningInfo, adminKeyNote: string | undefined): void {
  process.stdout.write(`roomsync server listening on ${listening.url} admin ${listening.adminURL}\n`);
  if (adminKeyNote !== undefined) process.stdout.write(`${adminKeyNote}\n`);
}

/** Graceful shutdown on SIGTERM/SIGINT; a second signal exits at once. */
function stopOnSignals(close: () => Promise<void>, logger: Logger): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn('second signal; exiting at once', { signal });
      process.exit(1);
    }
    stopping = true;
    logger.info('shutting down', { signal });
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', { error });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * `--room-processes N`: this process accepts connections and hands each to
 * one of N forks of itself (the same command line), which serve the rooms.
 */
async function runAcceptor(opts: CliOptions, count: number, config: CliServerConfig, postgresURL: string | undefined, logger: Logger): Promise<void> {
  const { key: adminKey, note } = adminKeyOf(opts, config, postgresURL);
  const pool = new RoomProcessPool({
    count,
    entry: process.argv[1]!,
    args: process.argv.slice(2),
    execArgv: process.execArgv,
    env: process.env,
    logger,
    roomWindows: new LocalRoomWindows(systemClock, {
      roomsPerUser: opts.limits.roomsPerUser ?? DEFAULT_ROOMS_PER_USER,
      roomsPerAddress: opts.limits.roomsPerAddress ?? DEFAULT_ROOMS_PER_ADDRESS,
      windowMs: DEFAULT_ROOM_QUOTA_WINDOW_MS,
    }),
  });
  try {
    await pool.start();
  } catch (error) {
    process.stderr.write(`roomsync server could not start: ${(error as Error).message}\n`);
    await pool.stop();
    process.exit(1);
  }
  const acceptor = createAcceptor({
    pool,
    adminKey,
    ...(opts.staticDir === undefined ? {} : { staticDir: opts.staticDir }),
    trustedProxies: opts.trustedProxies,
    ...(opts.limits.maxConnectionsPerAddress === undefined ? {} : { maxConnectionsPerAddress: opts.limits.maxConnectionsPerAddress }),
    logger,
  });
  await serve(acceptor, opts, config, adminKey, note, { roomsIn: `${count} room processes`, pids: pool.stats().map((s) => s.pid) }, logger);
}

await main();
