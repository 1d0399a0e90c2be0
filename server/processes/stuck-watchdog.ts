/** A watchdog thread of a room process (see room-process.ts): stops the process when a mutator is stuck in synchronous code. */
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { StuckBoard } from './stuck-board';

export interface WatchdogSetup {
  readonly board: SharedArrayBuffer;
  readonly mutatorTimeoutMs: number;
  /** The pipe the process's acceptor reads stuck mutations from. */
  readonly reportFD: number;
}

/**
 * How long the board may stay still, with a mutation under way, before the
 * process counts as stuck, in mutator timeouts: past one, so that a mutator
 * that only awaits too long is failed by its timer first (which moves the
 * board only when its promise settles: one that goes on running after its
 * timeout still holds it).
 */
const STILL_TIMEOUTS = 1.25;
/** How often the board is looked at, at most. */
const MAX_LOOK_INTERVAL_MS = 1000;

const setup = workerData as WatchdogSetup;
const board = new StuckBoard(setup.board);
const stillFor = STILL_TIMEOUTS * setup.mutatorTimeoutMs;
let lastSeq = board.seq;
let stillSince = performance.now();
setInterval(
  () => {
    const seq = board.seq;
    const now = performance.now();
    if (seq !== lastSeq || board.running === 0) {
      lastSeq = seq;
      stillSince = now;
      return;
    }
    if (now - stillSince < stillFor) return;
    try {
      writeSync(setup.reportFD, `${JSON.stringify({ inFlight: board.inFlight() })}\n`);
    } finally {
      process.kill(process.pid, 'SIGKILL');
    }
  },
  Math.max(1, Math.min(setup.mutatorTimeoutMs / 4, MAX_LOOK_INTERVAL_MS)),
);
parentPort!.postMessage('watching');
