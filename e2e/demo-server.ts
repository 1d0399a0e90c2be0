/** The demo as `npm start` runs it — built with Vite, served by the reference server on SQLite — for browser tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'vite';
import { demoMutators } from '../demo/shared/mutators';
import { createServer, SqliteStorage, type RoomsyncServer } from '../server/index';

const root = resolve(import.meta.dirname, '..');

export interface DemoServer {
  readonly url: string;
  readonly port: number;
  /** Stops the server (sockets close) and starts a new one on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

export async function startDemoServer(): Promise<DemoServer> {
  const outDir = mkdtempSync(join(tmpdir(), 'roomsync-demo-dist-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'roomsync-demo-data-'));
  await build({ configFile: join(root, 'demo/vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });

  const start = (port: number) => {
    const server = createServer({
      mutators: demoMutators,
      storage: new SqliteStorage({ path: join(dataDir, 'roomsync.sqlite') }),
      staticDir: outDir,
    });
    return server.listen(port, '127.0.0.1').then((info) => ({ server, port: info.port }));
  };

  let current: { server: RoomsyncServer; port: number } | undefined = await start(0);
  const port = current.port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async stop() {
      await current?.server.close();
      current = undefined;
    },
    async restart() {
      await this.stop();
      current = await start(port);
    },
    async close() {
      await current?.server.close();
      rmSync(outDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
