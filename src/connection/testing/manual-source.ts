import type { NetworkSource, VisibilitySource } from '../environment';

/** A visibility or network source the test flips by hand. */
export class ManualSource implements VisibilitySource, NetworkSource {
  #value: boolean;
  readonly #listeners = new Set<(value: boolean) => void>();

  constructor(initial = true) {
    this.#value = initial;
  }

  get visible(): boolean {
    return this.#value;
  }

  get online(): boolean {
    return this.#value;
  }

  set(value: boolean): void {
    if (value === this.#value) return;
    this.#value = value;
    for (const listener of [...this.#listeners]) listener(value);
  }

  subscribe(listener: (value: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
