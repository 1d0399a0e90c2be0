/**
 * `npm run test:package`: the package as a user gets it. Builds dist/, runs
 * publint and @arethetypeswrong/cli, packs the tarball, installs it into an
 * empty app outside the repository (no TypeScript tooling there), and then:
 *   - syncs two plain-Node clients (`roomsync/node`) through the
 *     `roomsync-server` bin started with `--mutators app-mutators.js`;
 *   - runs the `roomsync-conformance` bin against that server;
 *   - checks that a missing optional peer (better-sqlite3, pg) fails with
 *     an error naming the package to install;
 *   - builds a minimal Vite + React app on `roomsync/react`;
 *   - bundles a browser app importing `Reflect` (esbuild, ESM, split into
 *     chunks as an app bundler splits it) and holds the chunks the page loads
 *     at start — before its first mutate or query — to their budget
 *     (min+gzip, each chunk gzipped alone); the chunks the client loads later
 *     with import(), only when it needs them, are printed with their sizes.
 * Prints the figures (tarball files and size, install time, bundle size) and
 * one line per step; exits 1 if any step failed. The server process is
 * stopped by its PID and checked gone; the app directory is removed.
 *
 * Options: --keep (leave the app directory), --skip-vite.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { childProcessIDs } from '../server/test-support/child-server';
import { build as esbuild, type Metafile, type OutputFile } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'node_modules/.bin');
/**
 * min+gzip of the start-up chunks of a browser app that imports Reflect; above
 * it the step fails. Issue 11's target is 32 KB. Measured on 2026-11-24:
 * 46.1 KB (149.6 KB min; 47,190 B from dist at 5816eea). What moved it: the
 * code for other client groups and stores, the presence code, the tab merge
 * and the memory stores became lazy chunks, and the generated validators were
 * rewritten smaller (about 2.3 KB off in all); the read and write paths' fast
 * walks and the start-up work put about 1.3 KB back; opening IndexedDB
 * without idb's wrapper took 0.9 KB off; codegen leaving out the checks ajv
 * writes that cannot fail where it writes them (its always-true valid flags,
 * the presence tests of required properties, a discriminator branch's checks
 * of its own tag, a tuple's additionalItems, the number tests around a bound),
 * Number.isInteger for ajv's integer test, ClientRecord.tempRefreshHash as a
 * type list instead of anyOf, and a shorter depth walk of each frame
 * (json-limits) took 0.9 KB off (901 B); the commit and write paths' changes
 * since (b9c940e to 5816eea) put 0.1 KB back (101 B); the depth walk's guard
 * against limits too deep for its recursion (f07e863 and after) about 76 B.
 * (Validating with the schemas as data instead of ajv's precompiled code would
 * save 1.4 KB but made a 1,000-operation poke's check 16× slower, and the
 * design asks for ajv's precompiled validators, so it was reverted. A
 * required check per property in the generated code, a log helper in the
 * connection's state machine and a table of the validation messages each
 * saved min bytes but cost gzip bytes, gzip already sharing the repeats.)
 * The chain record in parts (a long offline backlog no longer rewrites every
 * hash of its chain at each store) put 0.3 KB back: 47,544 B from dist, 46.4 KB.
 * This budget is a regression guard, not the target, until the target is met;
 * it follows the figure down to 46.5 KB (0.1 KB of room, rounded up).
 */
const BUNDLE_BUDGET_BYTES = Math.ceil(46.5 * 1024);
/** Paths that must never be in the tarball. */
const FORBIDDEN_IN_TARBALL = [/\.test\.[cm]?[jt]sx?$/, /^\.ci\//, /^demo\//, /^e2e\//, /^bench\//, /^src\//, /^server\//, /^conformance\//, /^codegen\//, /test-support|test-fixtures/];
/** Packages the tarball alone must not pull into an app. */
const NOT_PULLED = ['react', 'react-dom', 'better-sqlite3', 'pg', 'ws', 'typescript', 'tsx'];

const { values: flags } = parseArgs({ options: { keep: { type: 'boolean', default: false }, 'skip-vite': { type: 'boolean', default: false } } });

interface StepResult {
  readonly name: string;
  readonly ok: boolean;
  readonly ms: number;
  readonly note: string;
}
const results: StepResult[] = [];
const figures: string[] = [];

async function step(name: string, fn: () => Promise<string> | string): Promise<boolean> {
  const start = performance.now();
  process.stdout.write(`== ${name}\n`);
  try {
    const note = await fn();
    results.push({ name, ok: true, ms: performance.now() - start, note });
    process.stdout.write(`   ok${note ? `: ${note}` : ''}\n`);
    return true;
  } catch (error) {
    const note = error instanceof Error ? error.message : String(error);
    results.push({ name, ok: false, ms: performance.now() - start, note });
    process.stdout.write(`!! ${name} failed: ${note}\n`);
    return false;
  }
}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false', ...env }, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return r;
}

function runOk(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const r = run(command, args, cwd, env);
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status ?? r.signal}:\n${tail(r.stdout)}\n${tail(r.stderr)}`);
  return r.stdout;
}

function tail(text: string, lines = 30): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

interface BundleChunk {
  readonly name: string;
  /** Loaded at start: the entry and what it imports statically, transitively (not what import() loads when it is called). */
  readonly atStart: boolean;
  readonly min: number;
  /** Gzipped alone, as a server sends each file. */
  readonly gzip: number;
  /** The roomsync modules in it (for the lazy chunks' lines). */
  readonly modules: string;
}

/** The chunks of a split esbuild bundle of one entry, each with whether the page loads it at start. */
function bundleChunks(metafile: Metafile, files: readonly OutputFile[], outdir: string): BundleChunk[] {
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((path) => outputs[path]!.entryPoint !== undefined);
  if (entry === undefined) throw new Error('esbuild reported no entry chunk');
  const atStart = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const path = queue.pop()!;
    if (atStart.has(path)) continue;
    atStart.add(path);
    for (const imported of outputs[path]!.imports) if (imported.kind === 'import-statement' && !imported.external) queue.push(imported.path);
  }
  return Object.keys(outputs).map((path) => {
    const file = files.find((f) => f.path === resolve(path));
    if (file === undefined) throw new Error(`esbuild wrote no ${path}`);
    const modules = Object.keys(outputs[path]!.inputs)
      .map((input) => input.replace(/^.*node_modules\/roomsync\/dist\//, '').replace(/\.js$/, ''))
      .join(', ');
    return { name: relative(outdir, resolve(path)), atStart: atStart.has(path), min: file.contents.length, gzip: gzipSync(file.contents).length, modules };
  });
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const work = mkdtempSync(join(tmpdir(), 'roomsync-package-'));
const app = join(work, 'app');
mkdirSync(app);
let tarball = '';
let server: { pid: number; url: string; exited: Promise<number | string>; stop(): Promise<void> } | undefined;

try {
  if (!(await step('build dist/ (tsdown)', () => tail(runOk(process.execPath, [join(ROOT, 'node_modules/tsdown/dist/run.mjs'), '--config-loader', 'tsx', '--no-report'], ROOT), 1)))) {
    throw new Error('no build, nothing to test');
  }

  await step('publint', () => {
    const out = runOk(join(BIN, 'publint'), ['--strict'], ROOT);
    figures.push(`publint --strict: ${tail(out, 1).trim()}`);
    return tail(out, 1).trim();
  });

  await step('npm pack', () => {
    const out = runOk('npm', ['pack', '--json', '--pack-destination', work], ROOT);
    const [packed] = JSON.parse(out) as { filename: string; size: number; unpackedSize: number; entryCount: number; files: { path: string }[] }[];
    tarball = join(work, packed!.filename);
    const forbidden = packed!.files.map((f) => f.path).filter((path) => FORBIDDEN_IN_TARBALL.some((pattern) => pattern.test(path)));
    if (forbidden.length > 0) throw new Error(`the tarball carries files it must not: ${forbidden.slice(0, 10).join(', ')}`);
    figures.push(`tarball: ${packed!.entryCount} files, ${kb(packed!.size)} packed, ${kb(packed!.unpackedSize)} unpacked`);
    return `${packed!.filename}: ${packed!.entryCount} files, ${kb(packed!.size)}`;
  });

  await step('@arethetypeswrong/cli (ESM-only profile: the package has no CommonJS entry)', () => {
    const out = runOk(join(BIN, 'attw'), [tarball, '--profile', 'esm-only', '--format', 'ascii'], ROOT);
    // One section per entry point: its name in quotes, then a line per resolution mode.
    const sections = out.split(/^(?="roomsync[^"\n]*"$)/m).slice(1);
    const codeEntries = sections.filter((section) => !/^"roomsync\/(package\.json|protocol\/json-schema)/.test(section));
    const notGreen = codeEntries.filter((section) => !/^node16 \(from ESM\): 🟢/m.test(section) || !/^bundler: 🟢/m.test(section));
    if (codeEntries.length !== 6 || notGreen.length > 0) throw new Error(`expected the 6 code entries, node16 (ESM) and bundler green for each:\n${tail(out, 80)}`);
    const entries = codeEntries.length;
    figures.push(`attw (esm-only): ${entries} entry points, node16-ESM and bundler resolve with types for each`);
    return `${entries} entry points, node16 (from ESM) and bundler 🟢 for each; no problems`;
  });

  await step('install the tarball alone into an empty app (no TypeScript tooling)', () => {
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'roomsync-package-test-app', private: true, type: 'module' }, null, 2)}\n`);
    const start = performance.now();
    runOk('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], app);
    const ms = performance.now() - start;
    const installed = readdirSync(join(app, 'node_modules')).flatMap((name) => (name.startsWith('@') ? readdirSync(join(app, 'node_modules', name)).map((n) => `${name}/${n}`) : [name])).filter((name) => !name.startsWith('.'));
    const pulled = NOT_PULLED.filter((name) => installed.includes(name));
    if (pulled.length > 0) throw new Error(`installing roomsync pulled ${pulled.join(', ')}`);
    figures.push(`install (roomsync alone, npm cache warm): ${(ms / 1000).toFixed(1)} s, ${installed.length} packages in node_modules`);
    return `${(ms / 1000).toFixed(1)} s; node_modules: ${installed.join(', ')}`;
  });

  await step('install the optional peers the app uses (ws; react and react-dom for the Vite app)', () => {
    const versions = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies as Record<string, string>;
    const peers = ['ws', ...(flags['skip-vite'] ? [] : ['react', 'react-dom'])].map((name) => `${name}@${versions[name]}`);
    const start = performance.now();
    runOk('npm', ['install', ...peers, '--no-audit', '--no-fund', '--prefer-offline'], app);
    return `${peers.join(' ')} in ${((performance.now() - start) / 1000).toFixed(1)} s`;
  });

  await step('a missing optional peer fails with the package to install', async () => {
    const probe = `
const server = await import('roomsync/server');
const messages = [];
try { new server.SqliteStorage({ path: 'x.sqlite' }); } catch (error) { messages.push(error.message); }
try { await server.PostgresStorage.open({ connectionString: 'postgres://127.0.0.1:9/none' }); } catch (error) { messages.push(error.message); }
console.log(JSON.stringify(messages));
`;
    const out = runOk(process.execPath, ['--input-type=module', '-e', probe], app);
    const messages = JSON.parse(out.trim()) as string[];
    const wanted = ['npm install better-sqlite3', 'npm install pg'];
    for (const [i, text] of wanted.entries()) {
      if (!messages[i]?.includes(text)) throw new Error(`expected an error naming "${text}", got ${JSON.stringify(messages[i])}`);
    }
    return messages.join(' | ');
  });

  await step('install better-sqlite3 for the server (linked from this checkout: no native build)', () => {
    runOk('npm', ['install', join(ROOT, 'node_modules/better-sqlite3'), '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], app);
    return 'linked';
  });

  writeFileSync(
    join(app, 'app-mutators.js'),
    `// The app's mutators, plain JavaScript: run by the clients optimistically and by roomsync-server authoritatively.
export const mutators = {
  async addNote(tx, { id, text }) {
    await tx.put(\`note/\${id}\`, { text });
  },
  async appendLog(tx, { line }) {
    const log = (await tx.get('log')) ?? [];
    await tx.put('log', [...log, line]);
  },
};
`,
  );

  await step('roomsync-server refuses to start on a wrong --mutators, saying why', () => {
    writeFileSync(join(app, 'typed-mutators.ts'), 'export const mutators = { async noop(_tx: unknown) {} };\n');
    const cases: [string, RegExp][] = [
      ['app-mutators.js#nope', /has no export "nope" holding mutators/],
      ['missing.js', /cannot load the mutators module .*missing\.js/],
      ['typed-mutators.ts', /a TypeScript module needs a loader/],
    ];
    for (const [spec, expected] of cases) {
      const r = run(join(app, 'node_modules/.bin/roomsync-server'), ['--port', '0', '--memory', '--mutators', spec], app);
      if (r.status !== 1 || !expected.test(r.stderr)) throw new Error(`--mutators ${spec}: exit ${r.status ?? r.signal}, stderr ${JSON.stringify(tail(r.stderr, 3))}`);
    }
    return cases.map(([spec]) => spec).join(', ');
  });

  await step('start roomsync-server --mutators app-mutators.js --data-dir (the bin, a real process, serving from its room processes)', async () => {
    const child = spawn(join(app, 'node_modules/.bin/roomsync-server'), ['--port', '0', '--data-dir', join(work, 'server-data'), '--mutators', 'app-mutators.js', '--log-level', 'warn'], {
      cwd: app,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid === undefined) throw new Error('roomsync-server did not start');
    const pid = child.pid;
    const stderr: string[] = [];
    createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
    const exited = new Promise<number | string>((resolveExit) => child.on('exit', (code, signal) => resolveExit(code ?? signal ?? -1)));
    const url = await new Promise<string>((resolveURL, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed in 30 s; stderr:\n${stderr.join('\n')}`)), 30_000);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const found = /ws:\/\/[0-9.]+:\d+/.exec(line);
        if (found) {
          clearTimeout(timer);
          resolveURL(found[0]);
        }
      });
      void exited.then((how) => {
        clearTimeout(timer);
        reject(new Error(`roomsync-server exited (${how}) before listening; stderr:\n${stderr.join('\n')}`));
      });
    });
    const roomProcesses = childProcessIDs(pid);
    if (roomProcesses.length < 2) throw new Error(`expected the default room processes (at least 2) under pid ${pid}, found ${roomProcesses.length}`);
    server = {
      pid,
      url,
      exited,
      async stop() {
        if (processExists(pid)) process.kill(pid, 'SIGTERM');
        const how = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('timeout'), 10_000))]);
        if (how === 'timeout') {
          process.kill(pid, 'SIGKILL');
          await exited;
          throw new Error(`roomsync-server (pid ${pid}) did not stop on SIGTERM within 10 s; killed`);
        }
        if (processExists(pid)) throw new Error(`roomsync-server (pid ${pid}) still exists`);
        const left = roomProcesses.filter(processExists);
        if (left.length > 0) throw new Error(`room processes ${left.join(', ')} of roomsync-server (pid ${pid}) still exist`);
      },
    };
    return `pid ${pid} at ${url}, room processes ${roomProcesses.join(', ')}`;
  });

  if (server !== undefined) {
    const url = server.url;
    writeFileSync(
      join(app, 'sync.js'),
      `// Two clients of one room in plain Node: each sees the other's mutations through the server.
import { Reflect } from 'roomsync/node';
import { mutators } from './app-mutators.js';

const [socketOrigin] = process.argv.slice(2);
const roomID = 'package-test';
const make = (userID) => new Reflect({ socketOrigin, roomID, userID, auth: userID, mutators });
const a = make('alice');
const b = make('bob');
const until = (client, body, accept) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no sync within 20 s')), 20_000);
    const stop = client.subscribe(body, (value) => {
      if (!accept(value)) return;
      clearTimeout(timer);
      stop();
      resolve(value);
    });
  });
await a.mutate.addNote({ id: '1', text: 'from alice' });
const seenByB = await until(b, (tx) => tx.get('note/1'), (v) => v !== undefined);
await b.mutate.appendLog({ line: 'bob saw note 1' });
await a.mutate.appendLog({ line: 'alice' });
const logA = await until(a, (tx) => tx.get('log'), (v) => Array.isArray(v) && v.length === 2);
const logB = await until(b, (tx) => tx.get('log'), (v) => Array.isArray(v) && v.length === 2);
if (JSON.stringify(logA) !== JSON.stringify(logB)) throw new Error(\`the clients disagree: \${JSON.stringify(logA)} vs \${JSON.stringify(logB)}\`);
console.log(JSON.stringify({ seenByB, log: logA }));
await Promise.all([a.close(), b.close()]);
`,
    );
    await step('two plain-Node clients (roomsync/node) sync through the server', () => {
      const out = runOk(process.execPath, ['sync.js', url], app);
      const result = JSON.parse(out.trim().split('\n').at(-1)!) as { seenByB: unknown; log: string[] };
      if (JSON.stringify(result.seenByB) !== JSON.stringify({ text: 'from alice' })) throw new Error(`bob saw ${JSON.stringify(result.seenByB)}`);
      if ([...result.log].sort().join() !== ['alice', 'bob saw note 1'].join()) throw new Error(`log ${JSON.stringify(result.log)}`);
      return `both see ${JSON.stringify(result.log)}`;
    });

    await step('roomsync-conformance --server (the bin) against that server', () => {
      const r = run(join(app, 'node_modules/.bin/roomsync-conformance'), ['--server', url], app);
      const counts = /(\d+) passed, (\d+) failed/.exec(`${r.stdout}\n${r.stderr}`);
      if (r.status !== 0 || counts === null) throw new Error(`exit ${r.status}:\n${tail(r.stderr)}`);
      const skipped = /(\d+) skipped/.exec(r.stderr);
      figures.push(`server conformance against the packaged server: ${counts[0]}${skipped ? `, ${skipped[0]}` : ''}`);
      return `${counts[0]}${skipped ? `, ${skipped[0]}` : ''}`;
    });

    await step('stop roomsync-server by its PID (nothing left running)', async () => {
      const pid = server!.pid;
      await server!.stop();
      server = undefined;
      return `pid ${pid} gone`;
    });
  }

  await step('roomsync-conformance client (the bin, our client through the public API)', () => {
    const r = run(join(app, 'node_modules/.bin/roomsync-conformance'), ['client', '--public-api'], app);
    const counts = /(\d+) passed, (\d+) failed/.exec(r.stdout);
    if (r.status !== 0 || counts === null) throw new Error(`exit ${r.status}:\n${tail(r.stdout)}\n${tail(r.stderr)}`);
    return counts[0];
  });

  await step('the JSON Schemas and roomsync/protocol resolve through the exports map', () => {
    const probe = `
const { default: poke } = await import('roomsync/protocol/json-schema/PokeMessage.json', { with: { type: 'json' } });
const protocol = await import('roomsync/protocol');
console.log(JSON.stringify({ title: poke.title ?? poke.$id ?? Object.keys(poke).slice(0, 3).join(' '), version: protocol.PROTOCOL_VERSION }));
`;
    const out = runOk(process.execPath, ['--input-type=module', '-e', probe], app);
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as { title: string; version: number };
    if (typeof result.version !== 'number') throw new Error(`roomsync/protocol gave no PROTOCOL_VERSION: ${out}`);
    return `PokeMessage.json (${result.title}), protocol v${result.version}`;
  });

  if (!flags['skip-vite']) {
    await step('a minimal Vite + React app on roomsync/react builds', async () => {
      mkdirSync(join(app, 'src'));
      writeFileSync(join(app, 'index.html'), '<!doctype html>\n<div id="root"></div>\n<script type="module" src="/src/main.js"></script>\n');
      writeFileSync(
        join(app, 'src/main.js'),
        `import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { Reflect } from 'roomsync';
import { useSubscribe } from 'roomsync/react';
import { mutators } from '../app-mutators.js';

const r = new Reflect({ socketOrigin: location.origin.replace(/^http/, 'ws'), roomID: 'r', userID: 'u', auth: 'u', mutators });
function Notes() {
  const notes = useSubscribe(r, (tx) => tx.scan({ prefix: 'note/' }).entries().toArray(), []);
  return h('ul', null, notes.map(([key, note]) => h('li', { key }, note.text)));
}
createRoot(document.getElementById('root')).render(h(Notes));
`,
      );
      // Vite is a build tool, not what is under test: the repository's copy builds the app, whose imports resolve in the app's node_modules.
      const { build } = await import('vite');
      // A production build, as an app ships it (CI exports NODE_ENV=test, which would keep React's development build).
      const nodeEnv = process.env.NODE_ENV;
      process.env.NODE_ENV = 'production';
      let out;
      try {
        out = await build({ root: app, mode: 'production', logLevel: 'silent', configFile: false, build: { outDir: join(app, 'dist'), emptyOutDir: true } });
      } finally {
        if (nodeEnv === undefined) delete process.env.NODE_ENV;
        else process.env.NODE_ENV = nodeEnv;
      }
      const outputs = (Array.isArray(out) ? out : [out]).flatMap((o) => ('output' in o ? o.output : []));
      const js = outputs.filter((o) => o.type === 'chunk');
      const code = js.map((o) => (o.type === 'chunk' ? o.code : '')).join('\n');
      if (!code.includes('useSyncExternalStore')) throw new Error('the built app has no React hook from roomsync/react');
      return `${js.length} chunk(s), ${kb(gzipSync(code).length)} min+gzip with React`;
    });
  }

  await step(`bundle-size budget: a browser app importing Reflect, start-up chunks min+gzip ≤ ${kb(BUNDLE_BUDGET_BYTES)}`, async () => {
    // Split as an app bundler splits it: what the client loads with import() only when it needs it is a chunk of its own.
    const outdir = join(app, 'bundle');
    const r = await esbuild({
      stdin: { contents: "import { Reflect } from 'roomsync';\nexport const client = (options) => new Reflect(options);\n", resolveDir: app, loader: 'js', sourcefile: 'app.js' },
      bundle: true,
      write: false,
      format: 'esm',
      splitting: true,
      outdir,
      metafile: true,
      platform: 'browser',
      minify: true,
    });
    const chunks = bundleChunks(r.metafile, r.outputFiles, outdir);
    const start = chunks.filter((c) => c.atStart);
    const lazy = chunks.filter((c) => !c.atStart);
    const startMin = start.reduce((sum, c) => sum + c.min, 0);
    const startGzip = start.reduce((sum, c) => sum + c.gzip, 0);
    figures.push(
      `bundle (browser, Reflect): start-up ${start.length} chunk(s) ${kb(startMin)} min, ${kb(startGzip)} min+gzip (budget ${kb(BUNDLE_BUDGET_BYTES)})` +
        lazy.map((c) => `\n  lazy chunk ${c.name} (${c.modules}): ${kb(c.min)} min, ${kb(c.gzip)} min+gzip`).join(''),
    );
    if (startGzip > BUNDLE_BUDGET_BYTES) throw new Error(`the start-up chunks, ${kb(startGzip)} min+gzip, are over the budget of ${kb(BUNDLE_BUDGET_BYTES)}`);
    return `start-up ${kb(startGzip)} min+gzip (${kb(startMin)} min, ${start.length} chunk(s)); ${lazy.length} lazy chunk(s), ${kb(lazy.reduce((sum, c) => sum + c.gzip, 0))} min+gzip`;
  });
} finally {
  if (server !== undefined) {
    await step('stop roomsync-server by its PID (after a failure)', async () => {
      const pid = server!.pid;
      await server!.stop();
      return `pid ${pid} gone`;
    });
  }
  if (flags.keep) process.stdout.write(`app kept in ${app}\n`);
  else rmSync(work, { recursive: true, force: true });
}

process.stdout.write('\n');
for (const line of figures) process.stdout.write(`${line}\n`);
const failed = results.filter((r) => !r.ok);
process.stdout.write(`test:package: ${results.length - failed.length} steps passed, ${failed.length} failed${failed.length ? ` (${failed.map((r) => r.name).join('; ')})` : ''}\n`);
process.exitCode = failed.length === 0 ? 0 : 1;
if (existsSync(join(work, 'app'))) process.stdout.write(`(${work})\n`);
