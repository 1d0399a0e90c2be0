import type { SocketConstructor, SocketLike } from '../../../src/connection/socket';

export interface SocketHooks {
  /** Rewrites the connect URL. */
  readonly url?: (url: string) => string;
  /** Rewrites (or drops, with null) each frame the client sends. */
  readonly send?: (text: string) => string | null;
  /** Wraps each event handler the client installs: `call` runs the client's handler. */
  readonly around?: (event: 'onmessage' | 'onclose' | 'onerror', data: unknown, call: () => void) => void;
}

const HANDLERS = ['onmessage', 'onclose', 'onerror'] as const;

/** A WebSocket constructor that behaves like `Base` with the hooks applied: for breaking a client from outside. */
export function wrapSocketConstructor(Base: SocketConstructor, hooks: SocketHooks): SocketConstructor {
  const Parent = Base as unknown as new (url: string, protocols?: string | string[]) => SocketLike;
  return class extends Parent {
    constructor(url: string, protocols?: string | string[]) {
      super(hooks.url ? hooks.url(url) : url, protocols);
      const around = hooks.around;
      if (around === undefined) return;
      for (const name of HANDLERS) {
        // The socket's own slot: a plain field (in-memory sockets) or an accessor that registers a listener (ws).
        const own = findProperty(this, name);
        let handler: ((event: unknown) => void) | null = null;
        const wrapped = (event: unknown) => around(name, event, () => handler?.(event));
        Object.defineProperty(this, name, {
          configurable: true,
          get: () => (handler === null ? null : wrapped),
          set: (value: ((event: unknown) => void) | null) => {
            handler = value;
            own?.set?.call(this, value === null ? null : wrapped);
          },
        });
      }
    }

    override send(data: string): void {
      const text = hooks.send ? hooks.send(String(data)) : data;
      if (text !== null) super.send(text);
    }
  } as unknown as SocketConstructor;
}

function findProperty(object: object, name: string): PropertyDescriptor | undefined {
  for (let o: object | null = object; o !== null; o = Object.getPrototypeOf(o)) {
    const descriptor = Object.getOwnPropertyDescriptor(o, name);
    if (descriptor !== undefined) return descriptor;
  }
  return undefined;
}
