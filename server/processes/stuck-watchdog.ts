/** A watchdog thread of a room process (see room-process.ts): stops the process when a mutator is stuck in synchronous code. */
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { StillnessWatch, STILL_TIMEOUTS, StuckBoard, watchIntervalMs } from './stuck-board';

export interface WatchdogSetup {
  readonly board: SharedArrayBuffer;
  readonly mutatorTimeoutMs: number;
  /** The pipe the process's acceptor reads stuck mutations from. */
  readonly reportFD: number;
}

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
  watchIntervalMs(setup.mutatorTimeoutMs),
);
parentPort!.postMessage('watching');
