import { CheckFailure } from '../../shared/check-failure';
import type { EngineClock } from './engine-clock';

/** Promise work (a mutate, a query, a close) gets this many settles to finish before it counts as stuck. */
const MAX_SETTLES_FOR_PROMISE = 20;

/**
 * Waits for a client's promise while the engine lets its work run (`settle`)
 * and, with `timers`, fires its timers one by one; a promise still pending
 * after that fails as stuck instead of hanging the run.
 */
export async function settlePromise<T>(promise: Promise<T> | T, what: string, settle: () => Promise<void>, timers?: EngineClock): Promise<T> {
  let outcome: { value: T } | { error: unknown } | undefined;
  Promise.resolve(promise).then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  for (let i = 0; i < MAX_SETTLES_FOR_PROMISE && outcome === undefined; i++) {
    await settle();
    if (timers !== undefined && outcome === undefined && timers.nextDueAt() !== undefined) timers.fireNext();
  }
  if (outcome === undefined) throw new CheckFailure(`timed out waiting for ${what}`);
  if ('error' in outcome) throw new CheckFailure(`${what} failed: ${String(outcome.error)}`);
  return outcome.value;
}
