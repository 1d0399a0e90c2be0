// Entry of a room worker. From TypeScript sources (tests, npm start) it
// registers tsx first; a built server imports the compiled module directly,
// registering tsx only for an app's mutators written in TypeScript (the
// server was then started with `node --import tsx`, which workers do not inherit).
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts') || /\.[cm]?tsx?$/.test(workerData.mutatorsURL ?? '')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
