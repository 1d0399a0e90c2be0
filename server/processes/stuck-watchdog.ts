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
 * Looks per mutator timeout. A mutation is stuck when one stays under way
 * with none started or ended for one look more than a timeout: a mutator
 * that only awaits too long is failed by its timer first, and the process
 * goes on.
 */
const LOOKS_PER_TIMEOUT = 4;

const setup = workerData as WatchdogSetup;
const board = new StuckBoard(setup.board);
let lastSeq = -1;
let strikes = 0;
setInterval(() => {
  const seq = board.seq;
  strikes = board.running > 0 && seq === lastSeq ? strikes + 1 : 0;
  lastSeq = seq;
  if (strikes <= LOOKS_PER_TIMEOUT) return;
  try {
    writeSync(setup.reportFD, `${JSON.stringify(board.last())}\n`);
  } finally {
    process.kill(process.pid, 'SIGKILL');
  }
}, setup.mutatorTimeoutMs / LOOKS_PER_TIMEOUT);
parentPort!.postMessage('watching');
