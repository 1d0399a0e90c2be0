/** Bundles a browser entry module with esbuild and serves it on loopback with an empty page. */
import { build } from 'esbuild';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedBundle {
  readonly url: string;
  close(): Promise<void>;
}

export async function serveBundle(entry: string): Promise<ServedBundle> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    sourcemap: 'inline',
    define: { 'process.env.NODE_ENV': '"test"' },
  });
  const script = result.outputFiles[0]!.text;
  const page = '<!doctype html><meta charset="utf-8"><title>roomsync browser test</title><script type="module" src="/bundle.js"></script>';
  const server = createServer((request, response) => {
    if (request.url === '/bundle.js') {
      // Module scripts from an opaque-origin (sandboxed) frame are CORS requests.
      response.writeHead(200, {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'no-store',
        'access-control-allow-origin': '*',
      });
      response.end(script);
    } else {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(page);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
