import type { Clock } from './clock';
import { CheckFailure } from './check-failure';

/** Settles like `promise`, or fails with a CheckFailure naming `what` after `timeoutMs`. */
export function withDeadline<T>(promise: Promise<T>, timeoutMs: number, clock: Clock, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const handle = clock.setTimeout(() => reject(new CheckFailure(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
    promise.then(
      (value) => {
        clock.clearTimeout(handle);
        resolve(value);
      },
      (error: unknown) => {
        clock.clearTimeout(handle);
        reject(error);
      },
    );
  });
}
