import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import type { ConformanceEnvironment } from './environment';

/** The real clock, sockets, randomness and HTTP of Node: the one place they are bound. */
export function nodeEnvironment(): ConformanceEnvironment {
  return {
    clock: {
      now: () => performance.now(),
      setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    },
    randomBytes: (count) => new Uint8Array(randomBytes(count)),
    openSocket: (url, protocol) => (protocol === undefined ? new WebSocket(url) : new WebSocket(url, protocol)),
    fetch: (url, init) => fetch(url, init),
  };
}
