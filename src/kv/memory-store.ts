/**
 * A KvStore in memory. Instances created with the same name in one JS realm
 * share their data and their lock, as two tabs share one IndexedDB database.
 * (The code is memory-kv.ts, which the browser's start-up loads lazily.)
 */
import { memoryKit } from './memory-kit';
import { memoryStoreClass, type MemoryStore as Store } from './memory-kv';

export const MemoryStore = /* @__PURE__ */ memoryStoreClass(memoryKit);
export type MemoryStore = Store;
