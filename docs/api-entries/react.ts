/**
 * `roomsync/react`: React hooks over a Reflect.
 * @module roomsync/react
 */
export * from '../../src/react/index';
