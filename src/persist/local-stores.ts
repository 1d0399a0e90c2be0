/**
 * Where a client's local stores live, chosen once at start: IndexedDB where
 * the platform has it, memory otherwise (Node without a durable provider,
 * an opaque-origin frame), or what the app gives. When IndexedDB refuses to
 * open (private mode, disabled storage, a broken profile) the client keeps
 * working in memory.
 */
import { IDBKvProvider } from '../kv/idb-provider';
import { MemoryKvProvider } from '../kv/memory-provider';
import type { KvProvider } from '../kv/provider';
import type { KvStore } from '../kv/types';

/** 'idb': IndexedDB; 'mem': memory (shared by the clients of this JS realm); or a provider (e.g. roomsync/node's SQLite). */
export type KvStoreOption = 'idb' | 'mem' | KvProvider;

export interface LocalStoresLogger {
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
}

export interface LocalStores {
  readonly provider: KvProvider;
  readonly dataKv: KvStore;
  readonly logKv: KvStore;
}

let toldNoIndexedDB = false;

export function chooseProvider(option: KvStoreOption | undefined, idbFactory: IDBFactory | undefined, logger: LocalStoresLogger): KvProvider {
  if (option !== undefined && option !== 'idb') return option === 'mem' ? new MemoryKvProvider() : option;
  if (idbFactory !== undefined) return new IDBKvProvider(idbFactory);
  const global = IDBKvProvider.fromGlobal();
  if (global !== undefined) return global;
  if (option === undefined) {
    // Node and other platforms without IndexedDB: the documented memory mode, said once per process.
    if (!toldNoIndexedDB) logger.info('IndexedDB is not available here; local data is kept in memory only');
    toldNoIndexedDB = true;
  } else {
    logger.warn("kvStore 'idb' was asked for, but IndexedDB is not available here; local data is kept in memory only");
  }
  return new MemoryKvProvider();
}

/** Opens the data store and its log; falls back to memory when the provider refuses. */
export async function openLocalStores(provider: KvProvider, dataName: string, logName: string, logger: LocalStoresLogger): Promise<LocalStores> {
  const [data, log] = await Promise.allSettled([provider.open(dataName), provider.open(logName)]);
  if (data.status === 'fulfilled' && log.status === 'fulfilled') return { provider, dataKv: data.value, logKv: log.value };
  for (const opened of [data, log]) if (opened.status === 'fulfilled') await opened.value.close();
  const error = data.status === 'rejected' ? (data.reason as unknown) : (log as PromiseRejectedResult).reason;
  if (!provider.durable) throw error;
  logger.warn(`Could not open the local store "${dataName}"; local data is kept in memory only (it will not survive a reload)`, error);
  const memory = new MemoryKvProvider();
  const [dataKv, logKv] = await Promise.all([memory.open(dataName), memory.open(logName)]);
  return { provider: memory, dataKv, logKv };
}
