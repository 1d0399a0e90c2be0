/**
 * `npm run bench [-- NAME…]`: runs the named benchmarks (all when none is named)
 * and prints their figures and ratios. Benchmarks print; they never fail on speed.
 */
export {};

const BENCHES: Record<string, () => Promise<() => Promise<void>>> = {
  protocol: async () => (await import('./protocol')).runProtocolBench,
  store: async () => (await import('./store')).runStoreBench,
  btree: async () => (await import('./btree')).runBTreeBench,
  server: async () => (await import('./server')).runServerBench,
  browser: async () => (await import('./browser/run')).runBrowserBench,
  startup: async () => (await import('./browser/startup')).runStartupTrace,
  backlog: async () => (await import('./backlog')).runBacklogBench,
  tabs: async () => (await import('./tabs')).runTabsBench,
  offline: async () => (await import('./offline')).runOfflineBench,
};

const requested = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const unknown = requested.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  console.error(`Unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}.`);
  process.exit(2);
}
for (const name of requested.length > 0 ? requested : Object.keys(BENCHES)) {
  const run = await BENCHES[name]!();
  await run();
}
