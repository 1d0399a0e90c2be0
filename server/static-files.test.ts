import { chmodSync, mkdtempSync, rmSync, writeFileSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRunning, killChildServers, startChildServer } from './test-support/child-server';

const NOBODY = 65534;
const dir = mkdtempSync(join(tmpdir(), 'roomsync-static-eacces-'));
afterAll(async () => {
  await killChildServers();
  rmSync(dir, { recursive: true, force: true });
});

describe('static files', () => {
  it('answers 404 for a file that can be stat\'ed but not opened (EACCES), and the process lives on', async () => {
    writeFileSync(join(dir, 'index.html'), '<h1>app</h1>');
    writeFileSync(join(dir, 'locked.js'), 'secret');
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'index.html'), 0o644);
    chmodSync(join(dir, 'locked.js'), 0o000);
    // Root may open anything: meet the permission error as an unprivileged user.
    const asRoot = process.getuid?.() === 0;
    if (!asRoot) chownSync(join(dir, 'locked.js'), process.getuid!(), process.getgid!());
    const server = await startChildServer(['--memory', '--static-dir', dir, '--log-level', 'error'], asRoot ? { uid: NOBODY } : {});
    const base = server.url.replace('ws://', 'http://');
    expect((await fetch(`${base}/locked.js`)).status).toBe(404);
    expect(await (await fetch(`${base}/`)).text()).toBe('<h1>app</h1>');
    expect(isRunning(server.pid)).toBe(true);
    expect(await server.stop('SIGTERM')).toBe(0);
  }, 30_000);
});
