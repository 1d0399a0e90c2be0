/**
 * `roomsync/protocol`: the wire protocol: message types, codecs, validators and limits.
 * @module roomsync/protocol
 */
export * from '../../src/protocol/index';
