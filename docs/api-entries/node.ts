/**
 * `roomsync/node`: the client in Node, with SQLite stores (needs better-sqlite3 and ws).
 * @module roomsync/node
 */
export * from '../../src/node/index';
