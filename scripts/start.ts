/**
 * `npm start`: builds the demo, starts the reference server on an embedded
 * SQLite store (./data), serves the demo from it and prints the URL to open.
 * Options: --port N (default 8080, or PORT), --host H (default 127.0.0.1),
 * --data-dir DIR (default ./data), --no-build (serve the last build).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'vite';
import { createJSONLogger, createServer, devAuthHandler, SqliteStorage } from '../server/index';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '8080' },
    host: { type: 'string', default: process.env.HOST ?? '127.0.0.1' },
    'data-dir': { type: 'string', default: './data' },
    'no-build': { type: 'boolean', default: false },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number, got ${values.port}`);
  process.exit(2);
}

const staticDir = join(root, 'demo/dist');
if (!values['no-build']) {
  console.log('Building the demo…');
  await build({ configFile: join(root, 'demo/vite.config.ts'), logLevel: 'warn' });
}

const dataDir = resolve(values['data-dir']);
mkdirSync(dataDir, { recursive: true });
const logger = createJSONLogger({ level: 'warn', write: (line) => process.stderr.write(line), now: Date.now });
const server = createServer({
  // The demo's mutators run in worker threads, where a stuck mutator is stopped.
  mutatorsModule: { url: new URL('../demo/shared/mutators.ts', import.meta.url).href, exportName: 'demoMutators' },
  // The demo signs nobody in: its token is the user id it picked. Development only (docs/security.md).
  authHandler: devAuthHandler,
  storage: new SqliteStorage({ path: join(dataDir, 'roomsync.sqlite') }),
  staticDir,
  logger,
});

let info;
try {
  info = await server.listen(port, values.host);
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
  console.log(`Port ${port} is in use; picking a free one.`);
  info = await server.listen(0, values.host);
}
const pageURL = `http://${values.host}:${info.port}/`;
console.log(`\nroomsync demo is running — open ${pageURL} (in two browsers to edit together)`);
console.log(`data: ${dataDir}; stop with Ctrl-C`);

const stop = () => {
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
