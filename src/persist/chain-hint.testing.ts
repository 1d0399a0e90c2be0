/** For tests of the start-up hint (group-chain's ChainHint) and of the join's reads in Node (fake-indexeddb). */
import { vi } from 'vitest';

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

/**
 * Rounds of reads of the data store's (`dataName`) readwrite transactions up to the first
 * write placed (the join's commit): a round is the requests asked before an
 * answer came.
 */
export function countJoinRounds(dataName: string): { rounds(): number; readsAfter(): number; asked: Record<string, number> } {
  const events: ('ask' | 'answer')[] = [];
  const asked: Record<string, number> = {};
  let writing = false;
  let readsAfter = 0;
  for (const method of ['get', 'getAll', 'getAllKeys', 'getAllRecords'] as const) {
    const original = (IDBObjectStore.prototype as unknown as Record<string, (...args: unknown[]) => IDBRequest>)[method]!;
    vi.spyOn(IDBObjectStore.prototype as unknown as Record<string, () => IDBRequest>, method).mockImplementation(function (this: IDBObjectStore, ...args: unknown[]) {
      const request = original.apply(this, args);
      if (writing && this.transaction.db.name === dataName) readsAfter++;
      if (!writing && this.transaction.mode === 'readwrite' && this.transaction.db.name === dataName) {
        events.push('ask');
        asked[method] = (asked[method] ?? 0) + 1;
        request.addEventListener('success', () => void (writing || events.push('answer')));
      }
      return request;
    } as never);
  }
  const put = IDBObjectStore.prototype.put;
  vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
    if (this.transaction.db.name === dataName) writing = true;
    return put.apply(this, args);
  });
  return { rounds: () => events.filter((e, i) => e === 'ask' && events[i - 1] !== 'ask').length, readsAfter: () => readsAfter, asked };
}
