import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteKvProvider } from './sqlite-kv-provider';
import { killAll, processExists, startNodeChild } from './test-support/node-child';

const SCRIPT = 'src/node/test-fixtures/increment-counter.ts';
const PROCESSES = 4;
const WRITERS_PER_PROCESS = 2;
const INCREMENTS_PER_WRITER = 50;

let dataDir: string | undefined;

afterEach(async () => {
  await killAll();
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

describe('SqliteKvProvider across processes', () => {
  it('processes incrementing one counter at once, each from several store instances, lose no update', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'roomsync-cross-process-'));
    const args = [dataDir, 'roomsync:counter', String(WRITERS_PER_PROCESS), String(INCREMENTS_PER_WRITER)];
    const children = Array.from({ length: PROCESSES }, () => startNodeChild(SCRIPT, args));
    await Promise.all(children.map((child) => child.waitForLine((line) => line === 'ready')));
    for (const child of children) child.send('go');
    expect(await Promise.all(children.map((child) => child.exited))).toEqual(children.map(() => 0));
    for (const child of children) {
      expect(child.lines).toContain('done');
      expect(processExists(child.pid)).toBe(false);
    }

    const store = await new SqliteKvProvider({ dataDir }).open('roomsync:counter');
    const read = await store.read();
    expect(await read.get('n')).toBe(PROCESSES * WRITERS_PER_PROCESS * INCREMENTS_PER_WRITER);
    read.release();
    await store.close();
  }, 60_000);
});
