/**
 * Stores in memory, shared by name within one JS realm (as tabs share one
 * origin's IndexedDB). A provider can be given a namespace so that tests or
 * several apps in one process keep apart.
 */
import { assertStoreName } from './errors';
import { MemoryStore } from './memory-store';
import type { KvProvider } from './provider';
import type { KvStore } from './types';

export class MemoryKvProvider implements KvProvider {
  readonly durable = false;
  readonly #namespace: string;

  /** `namespace` prefixes every store name; providers with the same namespace share stores. */
  constructor(namespace = '') {
    this.#namespace = namespace;
  }

  async open(name: string): Promise<KvStore> {
    assertStoreName(name);
    return new MemoryStore(this.#namespaced(name));
  }

  async list(): Promise<readonly string[]> {
    const prefix = this.#namespaced('');
    return MemoryStore.names()
      .filter((n) => n.startsWith(prefix))
      .map((n) => n.slice(prefix.length));
  }

  async drop(name: string): Promise<void> {
    MemoryStore.drop(this.#namespaced(name));
  }

  #namespaced(name: string): string {
    return this.#namespace === '' ? name : `${this.#namespace}/${name}`;
  }
}
