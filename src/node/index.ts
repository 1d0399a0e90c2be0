/**
 * roomsync/node: the client in Node (bots, CLIs, tests, Electron's main
 * process) with a durable local store. Everything `roomsync` exports, with
 * Node's Reflect in place of the browser's. Not imported by the browser entry.
 */
export * from '../index';
export { Reflect, type NodeReflectOptions } from './node-reflect';
export { SqliteKvProvider, sqliteKvProvider, DEFAULT_BUSY_TIMEOUT_MS, type SqliteKvProviderOptions } from './sqlite-kv-provider';
export { SqliteKvStore } from './sqlite-kv-store';
export { StoreBusyError, StoreCorruptError, StoreFileError, StoreNotWritableError, UnsupportedStoreNameError } from './sqlite-errors';
export { StoreClosedError, TransactionClosedError } from '../kv/errors';
export type { KvProvider } from '../kv/provider';
export type { KvRead, KvStore, KvWrite } from '../kv/types';
