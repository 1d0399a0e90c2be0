import type { TimerHandle, Timers } from './environment';

/** At most one pending timer per name; starting a name again replaces it. */
export class NamedTimers<Name extends string> {
  readonly #timers: Timers;
  readonly #handles = new Map<Name, TimerHandle>();

  constructor(timers: Timers) {
    this.#timers = timers;
  }

  start(name: Name, delayMs: number, fire: () => void): void {
    this.cancel(name);
    const handle = this.#timers.setTimeout(() => {
      if (this.#handles.get(name) !== handle) return;
      this.#handles.delete(name);
      fire();
    }, delayMs);
    this.#handles.set(name, handle);
  }

  cancel(name: Name): void {
    const handle = this.#handles.get(name);
    if (handle === undefined) return;
    this.#handles.delete(name);
    this.#timers.clearTimeout(handle);
  }

  cancelAll(): void {
    for (const name of [...this.#handles.keys()]) this.cancel(name);
  }
}
