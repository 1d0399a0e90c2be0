/** A watchdog thread of a room process (see room-process.ts): stops the process when a mutator is stuck in synchronous code. */
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { StillnessWatch, STILL_TIMEOUTS, StuckBoard } from './stuck-board';

export interface WatchdogSetup {
  readonly board: SharedArrayBuffer;
  readonly mutatorTimeoutMs: number;
  /** The pipe the process's acceptor reads stuck mutations from. */
  readonly reportFD: number;
}

/** How often the board is looked at, at most. */
const MAX_LOOK_INTERVAL_MS = 1000;

const setup = workerData as WatchdogSetup;
const board = new StuckBoard(setup.board);
const watch = new StillnessWatch(board, STILL_TIMEOUTS * setup.mutatorTimeoutMs, performance.now());
setInterval(
  () => {
    if (!watch.stuck(performance.now())) return;
    try {
      writeSync(setup.reportFD, `${JSON.stringify({ inFlight: board.inFlight() })}\n`);
    } finally {
      process.kill(process.pid, 'SIGKILL');
    }
  },
  Math.max(1, Math.min(setup.mutatorTimeoutMs / 4, MAX_LOOK_INTERVAL_MS)),
);
parentPort!.postMessage('watching');
