/** For tests of the start-up hint (group-chain's ChainHint) in Node. */

/** A Storage kept in a Map, for Node (which has no localStorage; the e2e tests use Chromium's). */
export class MapStorage implements Storage {
  [name: string]: unknown;
  readonly #items = new Map<string, string>();
  get length(): number {
    return this.#items.size;
  }
  clear(): void {
    this.#items.clear();
  }
  getItem(key: string): string | null {
    return this.#items.get(key) ?? null;
  }
  key(index: number): string | null {
    return [...this.#items.keys()][index] ?? null;
  }
  removeItem(key: string): void {
    this.#items.delete(key);
  }
  setItem(key: string, value: string): void {
    this.#items.set(key, String(value));
  }
}
