/**
 * Where a client's local stores live, chosen once at start: IndexedDB where
 * the platform has it, memory otherwise (Node without a durable provider,
 * an opaque-origin frame), or what the app gives. When IndexedDB refuses to
 * open (private mode, disabled storage, a broken profile) the client keeps
 * working in memory.
 */
import { IDBKvProvider } from '../kv/idb-provider';
import { lazyMemoryProvider, loadMemoryKv } from '../kv/memory-kit';
import type { KvProvider } from '../kv/provider';
import type { KvStore } from '../kv/types';
import { localStorageChainHint, type ChainHint } from './group-chain';
import { readLogs, type ClientLog } from './mutation-log';

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
  /**
   * The provider refused the log alone: it lives in memory beside the durable
   * data store. Its (empty) logs say nothing of what other clients logged:
   * garbage collection of groups and logs, and recovery from logs, must not
   * decide anything on them (the tabs with a durable log do it).
   */
  readonly logInMemory: boolean;
}

let toldNoIndexedDB = false;

export function chooseProvider(option: KvStoreOption | undefined, idbFactory: IDBFactory | undefined, logger: LocalStoresLogger): KvProvider {
  if (option !== undefined && option !== 'idb') return option === 'mem' ? lazyMemoryProvider() : option;
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
  return lazyMemoryProvider();
}

/**
 * Opens the data store and its log, resolving as soon as the data store is
 * open (a client starts joining its group while the log opens): the log
 * comes as a promise. When the provider refuses the data store, both live
 * in memory. When it refuses only the log, the log lives in memory (said
 * once): mutations are then durable at the data store's next persist, and
 * `logInMemory` resolves true (see LocalStores.logInMemory).
 */
export async function openLocalStores(
  provider: KvProvider,
  dataName: string,
  logName: string,
  logger: LocalStoresLogger,
): Promise<{
  readonly provider: KvProvider;
  readonly dataKv: KvStore;
  readonly logKv: Promise<KvStore>;
  readonly logInMemory: Promise<boolean>;
  /**
   * The logs, read as soon as the log store is open (before the data store
   * is): IndexedDB answers that read ahead of the join's reads, which the
   * first read waits for as it waits for the logs. Absent when a store fell
   * back to memory.
   */
  readonly logsRead?: Promise<readonly ClientLog[]>;
  /** IndexedDB in a page: the start-up hint of the data store (read while the stores open). */
  readonly chainHint?: ChainHint;
}> {
  // The log first: IndexedDB opens one database after the other, and answers requests in the order they
  // came; opened second, the log's read (which the first read waits for: logged mutations are replayed
  // before it) queued behind all of the join's reads and came last. Opened first, its read goes before
  // them, and the data store opens just after it.
  const log = provider.open(logName);
  const data = provider.open(dataName);
  log.catch(() => {}); // handled below, whichever way the data store goes
  const logsRead = log.then(readLogs);
  logsRead.catch(() => {}); // a log that did not open is handled below; a failed read fails the open that uses it
  const chainHint = provider instanceof IDBKvProvider ? localStorageChainHint(dataName) : undefined;
  let dataKv: KvStore;
  try {
    dataKv = await data;
  } catch (error) {
    void log.then((kv) => kv.close()).catch(() => {});
    if (!provider.durable) throw error;
    logger.warn(`Could not open the local store "${dataName}"; local data is kept in memory only (it will not survive a reload)`, error);
    const memory = new (await loadMemoryKv()).MemoryKvProvider();
    const [memoryData, memoryLog] = await Promise.all([memory.open(dataName), memory.open(logName)]);
    return { provider: memory, dataKv: memoryData, logKv: Promise.resolve(memoryLog), logInMemory: Promise.resolve(false) };
  }
  const opened = log.then(
    (kv) => ({ kv, inMemory: false }),
    async (error: unknown) => {
      if (!provider.durable) throw error;
      logger.warn(`Could not open the write-ahead log "${logName}"; it is kept in memory only (mutations are kept at the next store of the local state)`, error);
      return { kv: await new (await loadMemoryKv()).MemoryKvProvider().open(logName), inMemory: true };
    },
  );
  const logInMemory = opened.then((o) => o.inMemory);
  logInMemory.catch(() => {}); // the log's own promise carries the error
  return {
    provider,
    dataKv,
    logKv: opened.then((o) => o.kv),
    logInMemory,
    // A log kept in memory after all is read where it is (it is empty).
    logsRead: opened.then((o) => (o.inMemory ? readLogs(o.kv) : logsRead)),
    ...(chainHint === undefined ? {} : { chainHint }),
  };
}
