/**
 * Real time for the engine's own waits on loopback I/O, untouched by the fake
 * clock of the public-API path: @sinonjs/fake-timers keeps the platform's
 * timers as they were when it loaded, before any clock is installed.
 */
import { timers as nativeTimers } from '@sinonjs/fake-timers';

/** Waits `ms` of real time. */
export const realPause = (ms: number): Promise<void> => new Promise<void>((resolve) => nativeTimers.setTimeout(() => resolve(), ms));

/** One turn of the event loop: I/O callbacks that are ready run before it ends. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => (nativeTimers.setImmediate ?? nativeTimers.setTimeout)(() => resolve()));

/** Real milliseconds, for bounding the engine's waits. */
export const realNow = (): number => nativeTimers.Date.now();

/**
 * Work of the process still under way that a settle waits for: immediates
 * scheduled and not yet run (a client busy with a chain of them, e.g. an
 * IndexedDB in Node), besides the caller's own, and file reads in flight (a
 * client loading a module with import(), as roomsync loads the code of
 * mutation recovery when it finds something to recover). The count is
 * process-wide: a test runner's own file reads count too, which can only make
 * a settle wait longer, never end early.
 */
export const pendingLocalWork = (): number =>
  process.getActiveResourcesInfo().filter((resource) => resource === 'Immediate' || resource === 'FSReqPromise' || resource === 'FSReqCallback').length;
