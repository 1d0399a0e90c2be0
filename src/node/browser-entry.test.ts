import { build } from 'esbuild';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';

it('the browser entry (src/index.ts) pulls in nothing of roomsync/node: no src/node, no better-sqlite3, no ws, no node: modules', async () => {
  const result = await build({
    entryPoints: [resolve(import.meta.dirname, '../index.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    packages: 'external',
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.entries(result.metafile.inputs);
  expect(inputs.map(([path]) => path).filter((path) => path.startsWith('src/node/'))).toEqual([]);
  const external = inputs.flatMap(([, input]) => input.imports.filter((i) => i.external).map((i) => i.path));
  expect(external.filter((path) => /^(better-sqlite3|ws|node:)/.test(path))).toEqual([]);
});
