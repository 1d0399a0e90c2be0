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
import type { memoryKv } from './memory-kv';
import type { KvProvider } from './provider';
import type { KvRead, KvStore, KvWrite } from './types';
import { RWLock } from './rw-lock';

const DROPPED = 'Store is closed: it was deleted';

export const memoryKit = { RWLock, StoreClosedError, TransactionClosedError, assertStoreName, flatString, DROPPED } as const;

export type MemoryKit = typeof memoryKit;

/**
 * The memory store and provider, loaded the first time a client needs them
 * (IndexedDB missing or refusing to open, or `kvStore: 'mem'`); a failed load
 * is tried again at the next call.
 */
export const loadMemoryKv = lazyChunk(async (): Promise<ReturnType<typeof memoryKv>> => (loaded = (await import('./memory-kv')).memoryKv(memoryKit)));

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
let loaded: ReturnType<typeof memoryKv> | undefined;

/** Public stores made before the code loaded, by name: names() and drop() see them as they would a loaded one. */
const early = new Map<string, Set<MemoryStore>>();

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
  #dropped = false;

  constructor(name: string) {
    assertStoreName(name);
    this.name = name;
    if (loaded !== undefined) {
      this.#store = Promise.resolve((this.#inner = new loaded.MemoryStore(name)));
      return;
    }
    const waiting = early.get(name) ?? new Set();
    early.set(name, waiting.add(this));
    this.#store = loadMemoryKv().then((kv) => {
      waiting.delete(this);
      if (waiting.size === 0 && early.get(name) === waiting) early.delete(name);
      if (this.#dropped) throw new StoreClosedError(DROPPED);
      return (this.#inner = new kv.MemoryStore(name));
    });
    this.#store.catch(() => {}); // each call below carries a failed load
  }

  /** Forgets the data of every store of this name and closes them (for tests). */
  static drop(name: string): void {
    loaded?.MemoryStore.drop(name);
    for (const store of early.get(name) ?? []) store.#dropped = true;
    early.delete(name);
  }

  /** Names of the stores that hold data in this realm. */
  static names(): string[] {
    return [...new Set([...(loaded?.MemoryStore.names() ?? []), ...early.keys()])];
  }

  get closed(): boolean {
    return this.#closed || this.#dropped || (this.#inner?.closed ?? false);
  }

  async read(): Promise<KvRead> {
    if (this.#closed) throw new StoreClosedError();
    if (this.#dropped) throw new StoreClosedError(DROPPED);
    return (await this.#store).read();
  }

  async write(): Promise<KvWrite> {
    if (this.#closed) throw new StoreClosedError();
    if (this.#dropped) throw new StoreClosedError(DROPPED);
    return (await this.#store).write();
  }

  async close(): Promise<void> {
    this.#closed = true;
    // A store whose code never loaded has nothing to close.
    await (await this.#store.catch(() => undefined))?.close();
  }
}
