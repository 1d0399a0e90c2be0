/** A FIFO async mutex: one holder at a time. */
export class Lock {
  private tail: Promise<void> = Promise.resolve();

  run<R>(fn: () => Promise<R> | R): Promise<R> {
    const prev = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    return prev.then(fn).finally(release);
  }
}
