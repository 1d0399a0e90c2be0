/**
 * Bundles the bench pages with esbuild and serves them on loopback,
 * cross-origin isolated (COOP + COEP), so that performance.now() in the pages
 * has its fine resolution (5 µs instead of 100 µs).
 */
import { build } from 'esbuild';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { ImplName } from './page-api';

const ENTRIES: Record<ImplName, string> = {
  ours: resolve(import.meta.dirname, 'ours-page.ts'),
  replicache: resolve(import.meta.dirname, 'replicache-page.ts'),
};

const ISOLATION_HEADERS = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

export interface BenchSite {
  /** The page of an implementation (or of another entry given to serveBenchSite). */
  url(impl: ImplName | string): string;
  close(): Promise<void>;
}

/** `entries`: page name → entry module (default: ours and Replicache's pages). */
export async function serveBenchSite(entries: Readonly<Record<string, string>> = ENTRIES): Promise<BenchSite> {
  const scripts = new Map<string, string>();
  for (const [name, entry] of Object.entries(entries)) {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: process.env.BENCH_MINIFY !== '0',
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'error',
    });
    scripts.set(`/${name}.js`, result.outputFiles[0]!.text);
  }
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const script = scripts.get(path);
    if (script !== undefined) {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', ...ISOLATION_HEADERS });
      response.end(script);
      return;
    }
    const impl = path.slice(1);
    if (!Object.hasOwn(entries, impl)) {
      response.writeHead(path === '/favicon.ico' ? 204 : 404, ISOLATION_HEADERS);
      response.end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...ISOLATION_HEADERS });
    response.end(`<!doctype html><meta charset="utf-8"><title>${impl} bench</title><script type="module" src="/${impl}.js"></script>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: (impl) => `http://127.0.0.1:${port}/${impl}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
