import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateAll } from './generate';

const root = resolve(import.meta.dirname, '..');

describe('codegen', () => {
  it('is deterministic', () => {
    expect([...generateAll()]).toEqual([...generateAll()]);
  });

  it('marks every generated file DO NOT EDIT', () => {
    for (const [path, contents] of generateAll()) expect(contents.slice(0, 200), path).toContain('DO NOT EDIT');
  });

  it('emits validators that need no compiler at run time', () => {
    const validators = generateAll().get('src/protocol/generated/validators.js')!;
    expect(validators).not.toMatch(/new Function|\brequire\(|\bimport\b/);
  });

  it('keeps descriptive keywords in the JSON Schema files but not in the schema objects of the validators', () => {
    const files = generateAll();
    const published = files.get('protocol/json-schema/ErrorMessage.json')!;
    expect(published).toContain('"title"');
    expect(published).toContain('"description"');
    expect(published).toContain('"$comment"');
    const validators = files.get('src/protocol/generated/validators.js')!;
    expect(validators).toContain('"AuthInvalidated"'); // the ErrorKind enum is still embedded, for its error params
    expect(validators).not.toMatch(/"title"|"description"|"\$comment"/);
  });

  describe('gen and gen:check in a copy of the project', () => {
    const work = mkdtempSync(join(tmpdir(), 'roomsync-gen-'));
    afterAll(() => rmSync(work, { recursive: true, force: true }));
    for (const dir of ['protocol', 'codegen', 'src/protocol']) cpSync(join(root, dir), join(work, dir), { recursive: true });
    cpSync(join(root, 'package.json'), join(work, 'package.json'));
    symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'));
    const tsx = join(root, 'node_modules/.bin/tsx');
    const run = (...args: string[]) => {
      try {
        return { code: 0, output: execFileSync(tsx, ['codegen/main.ts', ...args], { cwd: work, encoding: 'utf8', stdio: 'pipe' }) };
      } catch (error) {
        const failed = error as { status: number; stdout: string; stderr: string };
        return { code: failed.status, output: failed.stdout + failed.stderr };
      }
    };

    it('passes on the committed output, fails naming the stale file after a schema edit, passes after gen', () => {
      expect(run('--check').code).toBe(0);

      const schemaFile = join(work, 'protocol/downstream.ts');
      const source = readFileSync(schemaFile, 'utf8');
      writeFileSync(schemaFile, source.replace("{ wsid: Type.String(),", "{ wsid: Type.String({ minLength: 1 }),"));
      const stale = run('--check');
      expect(stale.code).toBe(1);
      expect(stale.output).toContain('protocol/json-schema/ConnectedMessage.json (differs)');
      expect(stale.output).toContain('src/protocol/generated/validators.js (differs)');

      expect(run().code).toBe(0);
      const first = readFileSync(join(work, 'src/protocol/generated/validators.js'), 'utf8');
      expect(run('--check').code).toBe(0);
      expect(run().code).toBe(0);
      expect(readFileSync(join(work, 'src/protocol/generated/validators.js'), 'utf8')).toBe(first);
    });

    it('names generated files that should not be there', () => {
      writeFileSync(join(work, 'protocol/json-schema/Old.json'), '{}');
      const result = run('--check');
      expect(result.code).toBe(1);
      expect(result.output).toContain('protocol/json-schema/Old.json (not generated any more)');
      rmSync(join(work, 'protocol/json-schema/Old.json'));
    });
  });
});
