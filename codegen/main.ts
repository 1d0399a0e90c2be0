/**
 * `npm run gen`: writes protocol/json-schema/ and src/protocol/generated/.
 * `npm run gen:check`: generates in memory and fails, naming the stale files,
 * when the committed output differs.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_TS_DIR, JSON_SCHEMA_DIR, generateAll } from './generate';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outputDirs = [JSON_SCHEMA_DIR, GENERATED_TS_DIR];

function listExisting(): string[] {
  return outputDirs.flatMap((dir) =>
    existsSync(join(root, dir)) ? readdirSync(join(root, dir)).map((file) => `${dir}/${file}`) : [],
  );
}

function check(files: Map<string, string>): number {
  const stale: string[] = [];
  for (const [path, contents] of files) {
    const full = join(root, path);
    if (!existsSync(full)) stale.push(`${path} (missing)`);
    else if (readFileSync(full, 'utf8') !== contents) stale.push(`${path} (differs)`);
  }
  for (const path of listExisting()) if (!files.has(path)) stale.push(`${path} (not generated any more)`);
  if (stale.length === 0) {
    console.log(`gen:check: ${files.size} generated files are up to date.`);
    return 0;
  }
  console.error(`gen:check: generated files are stale — run \`npm run gen\` and commit:\n  ${stale.join('\n  ')}`);
  return 1;
}

function write(files: Map<string, string>): void {
  for (const path of listExisting()) if (!files.has(path)) rmSync(join(root, path));
  for (const [path, contents] of files) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), contents);
  }
  console.log(`gen: wrote ${files.size} files to ${outputDirs.join(' and ')}.`);
}

const files = generateAll();
if (process.argv.includes('--check')) process.exitCode = check(files);
else write(files);
