/**
 * Stores as IndexedDB databases of this origin, one database per store name.
 */
import { IDBStore } from './idb-store';
import type { KvProvider } from './provider';
import type { KvStore } from './types';

export class IDBKvProvider implements KvProvider {
  readonly durable = true;
  readonly #factory: IDBFactory;

  constructor(factory: IDBFactory) {
    this.#factory = factory;
  }

  /** The provider over the platform's IndexedDB, or undefined where there is none (or reading it throws, as in a sandboxed frame). */
  static fromGlobal(): IDBKvProvider | undefined {
    let factory: IDBFactory | undefined;
    try {
      factory = (globalThis as { indexedDB?: IDBFactory }).indexedDB;
    } catch {
      return undefined;
    }
    return factory === undefined ? undefined : new IDBKvProvider(factory);
  }

  open(name: string): Promise<KvStore> {
    return IDBStore.open(name, this.#factory);
  }

  async list(): Promise<readonly string[] | undefined> {
    if (typeof this.#factory.databases !== 'function') return undefined;
    const infos = await this.#factory.databases();
    return infos.flatMap((info) => (info.name === undefined ? [] : [info.name]));
  }

  drop(name: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const request = this.#factory.deleteDatabase(name);
      request.onsuccess = () => resolve();
      request.onerror = () => reject(request.error ?? new Error(`Could not delete IndexedDB database "${name}"`));
      // Blocked: another connection is still open; it gets a versionchange event and closes, then this completes.
    });
  }
}
