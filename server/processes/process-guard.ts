import { MutatorTimeoutError, StoppedMutatorError } from '../errors';
import type { MutationDeadlines } from '../engine/mutation-deadlines';
import { withDeadline, type MutationGuard } from '../engine/mutation-guard';
import type { StuckBoard, StuckList } from './stuck-board';

/**
 * The guard of a room process's mutators: one that does not settle within
 * the timeout fails (its room goes on; `deadlines` are the process's, one
 * timer for all its rooms); each is on the board from its start
 * until its promise settles, also after its timer failed it (it may go on
 * running), where the process's watchdog sees one stuck in synchronous code
 * and stops the process; and a mutation that stopped the process before is
 * skipped.
 */
export function roomProcessGuard(roomID: string, board: StuckBoard, stuck: StuckList, deadlines: MutationDeadlines, timeoutMs: number): MutationGuard {
  return {
    run(_place, mutation, call) {
      if (stuck.has(roomID, mutation.clientID, mutation.id)) return Promise.reject(new StoppedMutatorError(mutation.name));
      const slot = board.started(roomID, mutation);
      return withDeadline(
        deadlines,
        call,
        () => {
          board.timedOut(slot);
          return new MutatorTimeoutError(mutation.name, timeoutMs);
        },
        () => board.settled(slot),
      );
    },
  };
}
