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
 * How long the board may stay still (no mutation starting or settling, no
 * heartbeat of the main thread), with a mutation under way, before the
 * process counts as stuck, in mutator timeouts: past one, so that a mutator
 * that only awaits too long is failed by its timer first.
 */
const STILL_TIMEOUTS = 1.25;
/** How often the board is looked at, at most. */
const MAX_LOOK_INTERVAL_MS = 1000;

const setup = workerData as WatchdogSetup;
const board = new StuckBoard(setup.board);
const stillFor = STILL_TIMEOUTS * setup.mutatorTimeoutMs;
let lastSeq = board.seq;
let lastBeats = board.beats;
let stillSince = performance.now();
setInterval(
  () => {
    const seq = board.seq;
    const beats = board.beats;
    const now = performance.now();
    // Moving: a mutation started or settled, or the main thread's event loop turns (its mutators only await).
    if (seq !== lastSeq || beats !== lastBeats || board.running === 0) {
      lastSeq = seq;
      lastBeats = beats;
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
