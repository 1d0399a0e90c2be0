import { open, stat, type FileHandle } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

/**
 * Serves files under `root` for GET/HEAD. A path without a file extension
 * that matches no file gets index.html (client-side routes of a single-page
 * app); anything else missing is a 404. Returns false when it did not answer.
 */
export async function serveStatic(root: string, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const base = resolve(root);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return false;
  }
  const target = resolve(join(base, decoded));
  if (target !== base && !target.startsWith(base + sep)) return false;
  const file = (await fileAt(target)) ?? (await fileAt(join(target, 'index.html')));
  const chosen = file ?? (extname(decoded) === '' ? await fileAt(join(base, 'index.html')) : undefined);
  if (chosen === undefined) return false;
  // Opened before answering: a file that can be stat'ed but not read (EACCES) is a 404, not a crash.
  let handle: FileHandle;
  try {
    handle = await open(chosen, 'r');
  } catch {
    return false;
  }
  try {
    const size = (await handle.stat()).size;
    res.writeHead(200, { 'content-type': CONTENT_TYPES[extname(chosen).toLowerCase()] ?? 'application/octet-stream', 'content-length': size });
    if (req.method === 'HEAD') {
      res.end();
      await handle.close();
      return true;
    }
  } catch (error) {
    await handle.close();
    throw error;
  }
  const stream = handle.createReadStream();
  stream.on('error', () => res.destroy());
  stream.pipe(res);
  return true;
}

async function fileAt(path: string): Promise<string | undefined> {
  try {
    return (await stat(path)).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}
