// Entry of a room worker. From TypeScript sources (tests, npm start) it
// registers tsx first; a built server imports the compiled module directly.
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
