/**
 * `roomsync/server`: the reference server (needs ws; better-sqlite3 or pg for storage).
 * @module roomsync/server
 */
export * from '../../server/index';
