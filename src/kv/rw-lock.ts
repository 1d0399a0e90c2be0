/**
 * A readers/writer lock: any number of readers, or one writer. Waiters are
 * served in arrival order, so a steady stream of readers cannot starve a writer.
 */
export type Unlock = () => void;

interface Waiter {
  readonly write: boolean;
  readonly grant: () => void;
}

export class RWLock {
  #readers = 0;
  #writing = false;
  readonly #queue: Waiter[] = [];

  read(): Promise<Unlock> {
    if (!this.#writing && this.#queue.length === 0) {
      this.#readers++;
      return Promise.resolve(this.#readUnlock());
    }
    return new Promise((resolve) => {
      this.#queue.push({ write: false, grant: () => resolve(this.#readUnlock()) });
    });
  }

  write(): Promise<Unlock> {
    if (!this.#writing && this.#readers === 0 && this.#queue.length === 0) {
      this.#writing = true;
      return Promise.resolve(this.#writeUnlock());
    }
    return new Promise((resolve) => {
      this.#queue.push({ write: true, grant: () => resolve(this.#writeUnlock()) });
    });
  }

  async withRead<R>(fn: () => R | Promise<R>): Promise<R> {
    const unlock = await this.read();
    try {
      return await fn();
    } finally {
      unlock();
    }
  }

  async withWrite<R>(fn: () => R | Promise<R>): Promise<R> {
    const unlock = await this.write();
    try {
      return await fn();
    } finally {
      unlock();
    }
  }

  #readUnlock(): Unlock {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#readers--;
      this.#drain();
    };
  }

  #writeUnlock(): Unlock {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#writing = false;
      this.#drain();
    };
  }

  #drain(): void {
    while (this.#queue.length > 0 && !this.#writing) {
      const next = this.#queue[0]!;
      if (next.write) {
        if (this.#readers > 0) return;
        this.#queue.shift();
        this.#writing = true;
        next.grant();
        return;
      }
      this.#queue.shift();
      this.#readers++;
      next.grant();
    }
  }
}
