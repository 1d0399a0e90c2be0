import type { Timers } from '../clock';
import { timerGuard, type MutationGuard } from '../engine/mutation-guard';
import type { StuckBoard, StuckList } from './stuck-board';

/** What a mutation that had its room process stopped fails with when it comes again. */
export class StoppedMutatorError extends Error {
  override readonly name = 'MutatorTimeoutError';
  constructor(mutatorName: string) {
    super(`Mutator ${mutatorName} was stopped: it ran past the mutator timeout`);
  }
}

/**
 * The guard of a room process's mutators: one that does not settle within
 * the timeout fails (its room goes on); each is marked on the board, where
 * the process's watchdog sees one stuck in synchronous code and stops the
 * process; and a mutation that stopped the process before is skipped.
 */
export function roomProcessGuard(roomID: string, board: StuckBoard, stuck: StuckList, timers: Timers, timeoutMs: number): MutationGuard {
  const timed = timerGuard(timers, timeoutMs);
  return {
    async run(place, mutation, call) {
      if (stuck.has(roomID, mutation.clientID, mutation.id)) throw new StoppedMutatorError(mutation.name);
      board.started(roomID, mutation);
      try {
        return await timed.run(place, mutation, call);
      } finally {
        board.ended();
      }
    },
  };
}
