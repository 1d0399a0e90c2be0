/**
 * How the tabs (or, in Node, the clients of one process) of a user and room
 * tell each other what they did to their shared store: a BroadcastChannel
 * (injected; the platform's by default). Messages from other tabs may come
 * from other versions of this library, so they are checked before use.
 */

export interface BroadcastChannelLike {
  postMessage(message: unknown): void;
  onmessage: ((event: { readonly data: unknown }) => void) | null;
  close(): void;
}

export type BroadcastChannelConstructor = new (name: string) => BroadcastChannelLike;

export type TabMessage =
  /** A client moved its group's head in the shared store: the group's other clients refresh. */
  | { readonly type: 'stored'; readonly store: string; readonly clientGroupID: string; readonly clientID: string }
  /** A client appended mutations to its write-ahead log: the group's other clients may take them in from there. */
  | { readonly type: 'logged'; readonly store: string; readonly clientGroupID: string; readonly clientID: string }
  /** A client started a new client group (its mutators, indexes or schema differ): older tabs need an update. */
  | { readonly type: 'new-group'; readonly store: string; readonly clientGroupID: string; readonly clientID: string };

function isTabMessage(value: unknown): value is TabMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  return (
    (m.type === 'stored' || m.type === 'logged' || m.type === 'new-group') &&
    typeof m.store === 'string' &&
    typeof m.clientGroupID === 'string' &&
    typeof m.clientID === 'string'
  );
}

/** The platform's BroadcastChannel, where there is one. */
export function platformBroadcastChannel(): BroadcastChannelConstructor | undefined {
  return (globalThis as { BroadcastChannel?: BroadcastChannelConstructor }).BroadcastChannel;
}

export class TabChannel {
  readonly #channel: BroadcastChannelLike | undefined;
  readonly #listeners = new Set<(message: TabMessage) => void>();

  /** Without a constructor (no BroadcastChannel on this platform) nothing is sent or received. */
  constructor(ctor: BroadcastChannelConstructor | undefined, name: string) {
    this.#channel = ctor === undefined ? undefined : new ctor(name);
    // In Node an open channel would keep the process alive.
    (this.#channel as { unref?: () => void } | undefined)?.unref?.();
    if (this.#channel !== undefined) {
      this.#channel.onmessage = (event) => {
        if (!isTabMessage(event.data)) return;
        for (const listener of [...this.#listeners]) listener(event.data);
      };
    }
  }

  post(message: TabMessage): void {
    try {
      this.#channel?.postMessage(message);
    } catch {
      // A closed channel (the page is going away): the other tabs learn from their next refresh.
    }
  }

  subscribe(listener: (message: TabMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    this.#listeners.clear();
    if (this.#channel !== undefined) this.#channel.onmessage = null;
    this.#channel?.close();
  }
}
