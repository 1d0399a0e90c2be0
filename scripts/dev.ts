/**
 * `npm run dev`: the reference server (demo mutators, SQLite in ./data) and
 * the demo on Vite's dev server with hot reload; Vite forwards /api (the
 * sync socket) to the server. Options: --port N (Vite, default 5173),
 * --server-port N (default 8080), --data-dir DIR (default ./data).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createServer as createViteServer } from 'vite';
import { demoMutators } from '../demo/shared/mutators';
import { createJSONLogger, createServer, devAuthHandler, SqliteStorage } from '../server/index';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '5173' },
    'server-port': { type: 'string', default: '8080' },
    'data-dir': { type: 'string', default: './data' },
  },
});

const dataDir = resolve(values['data-dir']);
mkdirSync(dataDir, { recursive: true });
const server = createServer({
  // In the main thread, so edits to the mutators need no worker restart; the demo's token is its user id (development only).
  mutators: demoMutators,
  authHandler: devAuthHandler,
  storage: new SqliteStorage({ path: join(dataDir, 'roomsync.sqlite') }),
  logger: createJSONLogger({ level: 'warn', write: (line) => process.stderr.write(line), now: Date.now }),
});
const { url: syncURL } = await server.listen(Number(values['server-port']), '127.0.0.1');

const vite = await createViteServer({
  configFile: join(root, 'demo/vite.config.ts'),
  server: { port: Number(values.port), host: '127.0.0.1', proxy: { '/api': { target: syncURL, ws: true } } },
});
await vite.listen();
console.log(`\nroomsync dev: open http://127.0.0.1:${vite.config.server.port}/ (hot reload; sync server ${syncURL})`);

const stop = () => {
  void Promise.allSettled([vite.close(), server.close()]).then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
