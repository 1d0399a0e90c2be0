/** The subscription workloads' shape, shared by the Node store bench and the browser pages. */

/** Subscriptions open in the subscription and poke rows. */
export const SUBSCRIPTIONS = 100;

/** The key prefix subscription `p` watches. */
export const prefix = (p: number) => `p${String(p).padStart(3, '0')}/`;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Opens SUBSCRIPTIONS subscriptions through `watch` (one per prefix, returning
 * its stop) and waits for each first onData; `waitFor(p)` then resolves at the
 * next onData of prefix p.
 */
export async function subscribeAll(watch: (prefix: string, onData: () => void) => () => void) {
  const waiting = new Map<number, () => void>();
  const stops: (() => void)[] = [];
  let initial = 0;
  for (let p = 0; p < SUBSCRIPTIONS; p++) {
    let first = true;
    stops.push(
      watch(prefix(p), () => {
        if (first) {
          first = false;
          initial++;
          return;
        }
        const resolve = waiting.get(p);
        waiting.delete(p);
        resolve?.();
      }),
    );
  }
  while (initial < SUBSCRIPTIONS) await sleep(5);
  return {
    waitFor: (p: number) => new Promise<void>((resolve) => waiting.set(p, resolve)),
    end: () => stops.forEach((stop) => stop()),
  };
}
