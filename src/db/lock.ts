const noop = (): void => {};

/**
 * A FIFO async mutex: one holder at a time. On a free lock, `fn` starts at
 * once (no turn of the microtask queue first); one that throws at once throws
 * out of run (callers await it). The lock counts as taken only once `fn`
 * returns: a holder must not call `run` on its own lock before its first
 * await, where that call would run beside it (no holder does).
 */
export class Lock {
  /** Settles once the last holder is done; undefined when the lock is free. */
  private tail: Promise<unknown> | undefined;

  run<R>(fn: () => Promise<R> | R): Promise<R> {
    const out = this.tail ? this.tail.then(fn) : Promise.resolve(fn());
    const tail = (this.tail = out.catch(noop));
    void tail.then(() => {
      if (this.tail === tail) this.tail = undefined;
    });
    return out;
  }
}
