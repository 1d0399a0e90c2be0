/**
 * The entry iterator behind scan(). Written by hand rather than as an async
 * generator: within a leaf, next() hands out the stored entry tuple in an
 * already resolved promise, without the extra awaits a generator's yield
 * costs; only moving to the next leaf waits for a load.
 */
import type { Entry } from './types';

type Leaves = AsyncIterator<readonly [entries: readonly Entry[], start: number]>;

export class ScanIterator implements AsyncIterableIterator<Entry> {
  readonly #leaves: Leaves;
  #entries: readonly Entry[] = [];
  #index = 0;
  #done = false;

  constructor(leaves: Leaves) {
    this.#leaves = leaves;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Entry>> {
    if (this.#index < this.#entries.length) {
      return Promise.resolve({ value: this.#entries[this.#index++]!, done: false });
    }
    return this.#nextLeaf();
  }

  async return(): Promise<IteratorResult<Entry>> {
    this.#finish();
    await this.#leaves.return?.();
    return { value: undefined, done: true };
  }

  async #nextLeaf(): Promise<IteratorResult<Entry>> {
    while (!this.#done) {
      const r = await this.#leaves.next();
      if (r.done === true) {
        this.#finish();
        break;
      }
      const [entries, start] = r.value;
      if (start < entries.length) {
        this.#entries = entries;
        this.#index = start + 1;
        return { value: entries[start]!, done: false };
      }
    }
    return { value: undefined, done: true };
  }

  #finish(): void {
    this.#done = true;
    this.#entries = [];
    this.#index = 0;
  }
}
