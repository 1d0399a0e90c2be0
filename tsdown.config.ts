/**
 * The package build (`npm run build`, run by `npm run test:package`): every
 * public entry and the two bins to ESM JavaScript with declarations and
 * source maps in dist/. The repository itself runs on the sources (tsx,
 * vitest, vite) and never needs this build.
 *
 * dist/ is flat on purpose: the room workers are started from
 * `new URL('./worker-boot.mjs' | './worker-main.js', import.meta.url)` (a room
 * process's watchdog from './stuck-watchdog.js') and the
 * server's default mutators from `./conformance-mutators.js`, relative to
 * whichever chunk holds that code, so every chunk sits beside them.
 */
import { defineConfig, type UserConfig } from 'tsdown';

/**
 * Optional peer dependencies and who needs them. Imports of them from our
 * code are loaded on first use, so `roomsync/server` on SQLite runs without
 * `pg`, and a missing one fails with the command that installs it instead of
 * a resolution error at import time.
 */
const OPTIONAL_PEERS: Record<string, string> = {
  ws: 'the server, the Node client and the conformance runners need it',
  'better-sqlite3': 'SQLite storage and the Node client with a dataDir need it',
  pg: 'PostgreSQL storage needs it',
};
const PEER_PREFIX = '\0roomsync-optional-peer:';

function lazyPeerModule(name: string): string {
  const why = OPTIONAL_PEERS[name]!;
  return `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
let loaded;
function load() {
  if (loaded !== undefined) return loaded;
  try {
    loaded = require(${JSON.stringify(name)});
  } catch (error) {
    if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes(${JSON.stringify(`'${name}'`)})) {
      throw new Error(${JSON.stringify(`roomsync: the package "${name}" is not installed; ${why}. Install it: npm install ${name}`)}, { cause: error });
    }
    throw error;
  }
  return loaded;
}
// A stand-in that loads the package on first use: construct, call, property reads, instanceof and extends all reach the real export.
const peer = new Proxy(function () {}, {
  apply: (_target, thisArg, args) => Reflect.apply(load(), thisArg, args),
  construct: (_target, args, newTarget) => Reflect.construct(load(), args, newTarget === peer ? load() : newTarget),
  get: (_target, key) => Reflect.get(load(), key),
  has: (_target, key) => key in load(),
  getPrototypeOf: () => Reflect.getPrototypeOf(load()),
});
export default peer;
export const WebSocketServer = ${name === 'ws' ? 'new Proxy(function () {}, { construct: (_t, args, newTarget) => Reflect.construct(load().WebSocketServer, args, newTarget === WebSocketServer ? load().WebSocketServer : newTarget), get: (_t, key) => Reflect.get(load().WebSocketServer, key) })' : 'undefined'};
`;
}

const config: UserConfig = defineConfig({
  entry: {
    index: 'src/index.ts',
    react: 'src/react/index.ts',
    node: 'src/node/index.ts',
    protocol: 'src/protocol/index.ts',
    server: 'server/index.ts',
    conformance: 'conformance/index.ts',
    'roomsync-server': 'server/cli.ts',
    'roomsync-conformance': 'conformance/cli.ts',
    // Loaded by URL, not imported: the room worker, a room process's watchdog and the server's default (conformance-only) mutators.
    'worker-main': 'server/engine/worker-main.ts',
    'stuck-watchdog': 'server/processes/stuck-watchdog.ts',
    'conformance-mutators': 'server/conformance-mutators.ts',
  },
  outDir: 'dist',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  fixedExtension: false,
  sourcemap: true,
  dts: { sourcemap: false },
  clean: true,
  hash: true,
  copy: [{ from: 'server/engine/worker-boot.mjs', to: 'dist' }],
  // The declaration plugin's intermediate step has no source map of its own (the JavaScript maps are whole); the timings note is noise.
  checks: { sourcemapBroken: false, pluginTimings: false },
  failOnWarn: true,
  plugins: [
    {
      name: 'roomsync-optional-peers',
      resolveId: {
        // Before tsdown's own resolution, which would keep the plain import of an external package.
        order: 'pre',
        handler(source: string, importer: string | undefined) {
          // Declarations keep naming the real package (its types); only the JavaScript loads it lazily.
          if (importer !== undefined && /\.d\.[cm]?ts$/.test(importer)) return null;
          return Object.hasOwn(OPTIONAL_PEERS, source) ? { id: `${PEER_PREFIX}${source}` } : null;
        },
      },
      load(id: string) {
        return id.startsWith(PEER_PREFIX) ? lazyPeerModule(id.slice(PEER_PREFIX.length)) : null;
      },
    },
  ],
});

export default config;
