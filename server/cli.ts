/**
 * `npm run server -- [options]`: the reference server with SQLite storage,
 * JSON logs on stderr and graceful shutdown on SIGTERM/SIGINT.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { demoMutators } from '../demo/shared/mutators';
import { CliUsageError, parseCliArgs, USAGE } from './cli-args';
import { createServer } from './index';
import { createJSONLogger } from './logger';
import { MemoryStorage } from './storage/memory-storage';
import { SqliteStorage } from './storage/sqlite-storage';

const DATABASE_FILE = 'roomsync.sqlite';
const ADMIN_KEY_BYTES = 24;

async function main(): Promise<void> {
  let opts;
  try {
    opts = parseCliArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    process.stderr.write(`${error.message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const logger = createJSONLogger({ level: opts.logLevel, write: (line) => process.stderr.write(line), now: Date.now });
  process.on('unhandledRejection', (error) => logger.error('unhandled rejection', { error }));

  let storage;
  if (opts.dataDir === undefined) {
    storage = new MemoryStorage();
  } else {
    mkdirSync(opts.dataDir, { recursive: true });
    const path = resolve(join(opts.dataDir, DATABASE_FILE));
    storage = new SqliteStorage({ path, synchronous: opts.synchronous });
    logger.info('storage opened', { path, synchronous: opts.synchronous });
  }
  const generatedKey = opts.adminKey === undefined;
  const adminKey = opts.adminKey ?? randomBytes(ADMIN_KEY_BYTES).toString('base64url');
  const server = createServer({
    // The demo's mutators; the conformance mutators are always registered too.
    mutators: demoMutators,
    storage,
    adminKey,
    logger,
    requireRooms: opts.requireRooms,
    ...(opts.staticDir === undefined ? {} : { staticDir: opts.staticDir }),
    ...(opts.maxFrameBytes === undefined ? {} : { maxFrameBytes: opts.maxFrameBytes }),
    ...(opts.maxMutationsPerPush === undefined ? {} : { maxMutationsPerPush: opts.maxMutationsPerPush }),
  });
  const { url, adminURL } = await server.listen(opts.port, opts.host);
  process.stdout.write(`roomsync server listening on ${url} admin ${adminURL}\n`);
  if (generatedKey) process.stdout.write(`admin key: ${adminKey}\n`);
  logger.info('listening', { url, adminURL, requireRooms: opts.requireRooms });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn('second signal; exiting at once', { signal });
      process.exit(1);
    }
    stopping = true;
    logger.info('shutting down', { signal });
    server.close().then(
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

await main();
