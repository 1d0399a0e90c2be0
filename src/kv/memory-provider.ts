/**
 * Stores in memory, shared by name within one JS realm (as tabs share one
 * origin's IndexedDB). A provider can be given a namespace so that tests or
 * several apps in one process keep apart.
 * (The code is memory-kv.ts, which the browser's start-up loads lazily.)
 */
import { memoryKit } from './memory-kit';
import { memoryProviderClass, type MemoryKvProvider as Provider } from './memory-kv';

export const MemoryKvProvider = /* @__PURE__ */ memoryProviderClass(memoryKit);
export type MemoryKvProvider = Provider;
