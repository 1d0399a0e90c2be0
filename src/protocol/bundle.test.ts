import { build } from 'esbuild';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';

it('a browser bundle of src/protocol contains the precompiled validators but no ajv compiler or TypeBox', async () => {
  const result = await build({
    entryPoints: [resolve(import.meta.dirname, 'index.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    minify: true,
    metafile: true,
  });
  const inputs = Object.keys(result.metafile.inputs);
  expect(inputs.filter((path) => path.includes('node_modules'))).toEqual([]);
  const code = result.outputFiles[0]!.text;
  expect(code).not.toMatch(/new Function|\beval\(/);
  expect(code).toContain('must have required property');
  // Size budget for the whole protocol layer, minified (not gzipped).
  expect(code.length).toBeLessThan(60_000);
});

it("a browser bundle of the client's codec and record validators carries no validator of client → server frames", async () => {
  const result = await build({
    stdin: {
      contents: [
        "export { decodeDownstream, encodeUpstream } from './codec';",
        "export { validateClientGroupRecord, validateClientRecord } from './generated/validators';",
      ].join('\n'),
      resolveDir: import.meta.dirname,
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    minify: true,
  });
  const code = result.outputFiles[0]!.text;
  expect(code).toContain('lastMutationIDChanges'); // the pull response validator
  expect(code).not.toContain('pushVersion'); // only push frames (upstream) have it
});
