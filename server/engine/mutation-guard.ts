import type { Timers } from '../clock';
import { MutatorTimeoutError } from '../errors';
import { MutationDeadlines } from './mutation-deadlines';
import type { Mutation } from '../../src/protocol';
import type { MutationPlace } from './engine-types';

/** Runs one mutator call (`mutation` at `place` in its batch); it may fail it when it takes too long. */
export interface MutationGuard {
  run<T>(place: MutationPlace, mutation: Mutation, call: () => Promise<T>): Promise<T>;
}

/**
 * In-process guard: a mutator that has not settled after `timeoutMs` fails
 * (its room goes on). It cannot stop synchronous code: only a worker can.
 */
export function timerGuard(timers: Timers, timeoutMs: number): MutationGuard {
  const deadlines = new MutationDeadlines(timers, timeoutMs);
  return { run: (_place, mutation, call) => withDeadline(deadlines, call, () => new MutatorTimeoutError(mutation.name, timeoutMs)) };
}

/**
 * `call()`'s outcome, or a rejection with `timedOut()` once its deadline
 * passed first; `settled` runs when `call()`'s promise settles, also after
 * its deadline failed it.
 */
export function withDeadline<T>(deadlines: MutationDeadlines, call: () => Promise<T>, timedOut: () => Error, settled?: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const deadline = deadlines.add(() => reject(timedOut()));
    let running: Promise<T>;
    try {
      running = call();
    } catch (error) {
      // A call that throws instead of rejecting settles all the same.
      running = Promise.reject(error);
    }
    running.then(
      (value) => {
        deadlines.settled(deadline);
        settled?.();
        resolve(value);
      },
      (error: unknown) => {
        deadlines.settled(deadline);
        settled?.();
        reject(error);
      },
    );
  });
}

/** Slots of the shared board a worker marks its running mutation on. */
export const BOARD_SEQ = 0;
export const BOARD_RUNNING = 1;
export const BOARD_ROOM = 2;
export const BOARD_PUSH = 3;
export const BOARD_MUTATION = 4;
export const BOARD_SLOTS = 5;

/**
 * Worker guard: marks the running mutation on a shared board, so the main
 * thread can see a mutation that does not end and stop the worker.
 */
export function boardGuard(board: Int32Array, roomNumber: number): MutationGuard {
  return {
    async run(place, _mutation, call) {
      Atomics.add(board, BOARD_SEQ, 1);
      Atomics.store(board, BOARD_ROOM, roomNumber);
      Atomics.store(board, BOARD_PUSH, place.push);
      Atomics.store(board, BOARD_MUTATION, place.mutation);
      Atomics.store(board, BOARD_RUNNING, 1);
      try {
        return await call();
      } finally {
        Atomics.store(board, BOARD_RUNNING, 0);
      }
    },
  };
}
