/**
 * A child process of the durability proof: opens the Node Reflect on
 * DATA_DIR, offline (SOCKET_ORIGIN is a closed port), prints its client id,
 * waits for `go` on stdin (so that several children mutate at the same time),
 * makes COUNT mutations one after another, and SIGKILLs itself the moment the
 * last `await r.mutate.add(...)` resolves: no close, no persist, no exit hook.
 * With `turn`, it lets the event loop turn once more before dying (what
 * background work finishes in that turn survives).
 *
 * Usage: node --import tsx mutate-then-die.ts DATA_DIR SOCKET_ORIGIN COUNT [turn]
 */
import { createInterface } from 'node:readline';
import { Reflect } from '../index';
import { PROOF_ROOM_ID, PROOF_USER_ID, counterMutators } from './counter-mutators';

const [dataDir, socketOrigin, count, when] = process.argv.slice(2);
if (dataDir === undefined || socketOrigin === undefined) throw new Error('usage: mutate-then-die.ts DATA_DIR SOCKET_ORIGIN COUNT');

const r = new Reflect({
  userID: PROOF_USER_ID,
  roomID: PROOF_ROOM_ID,
  socketOrigin,
  auth: PROOF_USER_ID,
  mutators: counterMutators,
  dataDir,
  logSinks: [],
});
process.stdout.write(`client ${r.clientID} group ${await r.clientGroupID}\n`);
await new Promise<void>((go) => createInterface({ input: process.stdin }).once('line', () => go()));
const total = Number(count);
for (let i = 0; i < total - 1; i++) await r.mutate.add(i);
await r.mutate.add(total - 1);
if (when === 'turn') await new Promise((turned) => setImmediate(turned));
process.kill(process.pid, 'SIGKILL');
