/**
 * The edge: the one place that binds the connection to the browser (or Node).
 * Everything else receives these through ConnectionEnvironment.
 */
import type { ConnectionEnvironment, NetworkSource, RandomSource, VisibilitySource } from './environment';
import type { SocketConstructor, SocketLike } from './socket';

interface EventTargetLike {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
}

export interface DocumentLike extends EventTargetLike {
  readonly visibilityState: string;
}

export interface WindowLike extends EventTargetLike {
  readonly navigator: { readonly onLine: boolean };
}

/** document.visibilityState and its visibilitychange event. */
export function documentVisibility(doc: DocumentLike): VisibilitySource {
  return {
    get visible() {
      return doc.visibilityState === 'visible';
    },
    subscribe(listener) {
      const handler = () => listener(doc.visibilityState === 'visible');
      doc.addEventListener('visibilitychange', handler);
      return () => doc.removeEventListener('visibilitychange', handler);
    },
  };
}

/** navigator.onLine and the window's online/offline events. */
export function navigatorNetwork(win: WindowLike): NetworkSource {
  return {
    get online() {
      return win.navigator.onLine;
    },
    subscribe(listener) {
      const online = () => listener(true);
      const offline = () => listener(false);
      win.addEventListener('online', online);
      win.addEventListener('offline', offline);
      return () => {
        win.removeEventListener('online', online);
        win.removeEventListener('offline', offline);
      };
    },
  };
}

/** Outside a browser the page is always visible and the network always up. */
export const alwaysOn: VisibilitySource & NetworkSource = {
  visible: true,
  online: true,
  subscribe: () => () => {},
};

/** Random values drawn from the platform 64 at a time: a client's start draws 41 (its id, its hash prefix), one call of the platform instead of 41. */
const randomPool = new Uint32Array(64);
let randomTaken = randomPool.length;
const cryptoRandom: RandomSource = () => {
  if (randomTaken === randomPool.length) {
    globalThis.crypto.getRandomValues(randomPool);
    randomTaken = 0;
  }
  return randomPool[randomTaken++]! / 2 ** 32;
};

class MissingWebSocket {
  constructor() {
    throw new Error('No WebSocket implementation is available here: pass one (e.g. the ws package) in the options');
  }
}

export function defaultEnvironment(overrides: Partial<ConnectionEnvironment> = {}): ConnectionEnvironment {
  const g = globalThis as { document?: DocumentLike; window?: WindowLike; WebSocket?: SocketConstructor };
  return {
    clock: { now: () => Date.now(), monotonicNow: () => performance.now() },
    timers: {
      setTimeout: (callback, delayMs) => globalThis.setTimeout(callback, delayMs),
      clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
    },
    random: globalThis.crypto?.getRandomValues === undefined ? Math.random : cryptoRandom,
    WebSocket: g.WebSocket ?? (MissingWebSocket as unknown as new (url: string) => SocketLike),
    visibility: g.document === undefined ? alwaysOn : documentVisibility(g.document),
    network: g.window?.navigator === undefined ? alwaysOn : navigatorNetwork(g.window),
    ...overrides,
  };
}

/** The default of onUpdateNeeded and onClientStateNotFound: reload the page (nothing outside a browser). */
export function reloadPage(): void {
  const g = globalThis as { location?: { reload(): void } };
  g.location?.reload();
}
