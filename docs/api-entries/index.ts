/**
 * `roomsync`: the client for browsers (IndexedDB) and any runtime with a WebSocket.
 * @module roomsync
 */
export * from '../../src/index';
