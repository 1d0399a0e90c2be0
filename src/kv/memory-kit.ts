/**
 * What the memory stores (memory-kv.ts, a lazy chunk) use of the start-up
 * code, handed to them at run time rather than imported: a chunk importing
 * these modules would share them with the start-up code, and a bundler
 * splitting code would move them into a chunk of their own, loaded at start
 * beside the entry.
 */
import { lazyChunk } from '../lazy-chunk';
import { StoreClosedError, TransactionClosedError, assertStoreName } from './errors';
import { flatString } from './flat-string';
import type { KvProvider } from './provider';
import type { KvRead, KvStore, KvWrite } from './types';
import { RWLock } from './rw-lock';

export const memoryKit = { RWLock, StoreClosedError, TransactionClosedError, assertStoreName, flatString } as const;

export type MemoryKit = typeof memoryKit;

/**
 * The memory store and provider, loaded the first time a client needs them
 * (IndexedDB missing or refusing to open, or `kvStore: 'mem'`); a failed load
 * is tried again at the next call.
 */
export const loadMemoryKv = lazyChunk(async () => (await import('./memory-kv')).memoryKv(memoryKit));

/** A memory provider (see memory-kv.ts's MemoryKvProvider) whose code is loaded at its first call. */
export function lazyMemoryProvider(namespace?: string): KvProvider {
  const provider = async () => new (await loadMemoryKv()).MemoryKvProvider(namespace);
  return {
    durable: false,
    open: async (name) => (await provider()).open(name),
    list: async () => (await provider()).list(),
    drop: async (name) => (await provider()).drop(name),
  };
}

/** The memory stores' code once loadMemoryKv has loaded it (static calls answer from it). */
let loaded: Awaited<ReturnType<typeof loadMemoryKv>> | undefined;

/**
 * The MemoryStore of the package's public API: a KvStore in memory (see
 * memory-kv.ts, whose instances of one name in one JS realm share their
 * data), its code loaded with import() when it is made. The same store as
 * memory-store.ts's, without that code in an app's start-up.
 */
export class MemoryStore implements KvStore {
  readonly name: string;
  readonly #store: Promise<KvStore>;
  #inner: KvStore | undefined;
  #closed = false;

  constructor(name: string) {
    assertStoreName(name);
    this.name = name;
    this.#store = loadMemoryKv().then((kv) => (this.#inner = new (loaded = kv).MemoryStore(name)));
    this.#store.catch(() => {}); // each call below carries a failed load
  }

  /** Forgets the data of every store of this name (for tests). */
  static drop(name: string): void {
    loaded?.MemoryStore.drop(name);
  }

  /** Names of the stores that hold data in this realm (none before the code is loaded). */
  static names(): string[] {
    return loaded?.MemoryStore.names() ?? [];
  }

  get closed(): boolean {
    return this.#closed || (this.#inner?.closed ?? false);
  }

  async read(): Promise<KvRead> {
    if (this.#closed) throw new StoreClosedError();
    return (await this.#store).read();
  }

  async write(): Promise<KvWrite> {
    if (this.#closed) throw new StoreClosedError();
    return (await this.#store).write();
  }

  async close(): Promise<void> {
    this.#closed = true;
    // A store whose code never loaded has nothing to close.
    await (await this.#store.catch(() => undefined))?.close();
  }
}
