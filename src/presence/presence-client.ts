import type { ReadonlyJSONValue } from '../../protocol/json';
import type { PresenceEntry } from './presence-entry';
import { PresenceSender, type PresenceSenderDeps } from './presence-sender';
import type { CheckedPresenceState } from './presence-state';
import { buildPresence, type Presence, type PresenceSelf } from './presence-view';

/**
 * What a client's presence needs. It is a lazy chunk with the sender and the
 * view (reflect-presence.ts loads it at the first setPresence or
 * subscribeToPresence), so what it uses of the start-up code (JSON equality,
 * the send interval) comes in here rather than by import: a chunk importing
 * start-up modules would split the start-up code in two (persist/store-kit.ts
 * says more).
 */
export interface PresenceClientDeps extends PresenceSenderDeps {
  readonly self: PresenceSelf;
  /** Calls `onData` with the stored presence entries now and whenever they change; returns the unsubscribe function. */
  readonly watchEntries: (onData: (entries: readonly PresenceEntry[]) => void) => () => void;
  /** Calls `onChange` with whether the client is connected now and whenever that changes; returns the unsubscribe function. */
  readonly watchConnected: (onChange: (connected: boolean) => void) => () => void;
  /** Runs the built-in presence mutation with `state`. */
  readonly mutate: (state: ReadonlyJSONValue) => Promise<unknown>;
  readonly onError: (message: string, error: unknown) => void;
}

/**
 * A client's presence: the view of who is here for the app, and this
 * client's state sent to the server. It starts watching the store at the
 * first `set` or `subscribe`.
 */
export class PresenceClient {
  readonly #deps: PresenceClientDeps;
  readonly #sender: PresenceSender;
  readonly #listeners = new Set<(presence: Presence) => void>();
  #entries: readonly PresenceEntry[] | undefined;
  #ownState: ReadonlyJSONValue | undefined;
  #view: Presence | undefined;
  #stops: (() => void)[] | undefined;
  #closed = false;

  constructor(deps: PresenceClientDeps) {
    this.#deps = deps;
    this.#sender = new PresenceSender(deps, (state) => {
      deps.mutate(state.value).catch((error: unknown) => deps.onError('Could not set the presence state', error));
    });
  }

  /** Sets this client's presence state (checked by checkPresenceState). */
  set(checked: CheckedPresenceState): void {
    if (this.#closed) return;
    this.#ownState = checked.value;
    this.#start();
    this.#sender.setDesired(checked);
    this.#update();
  }

  /** Calls `callback` with who is here once the store has been read, and whenever that changes. */
  subscribe(callback: (presence: Presence) => void): () => void {
    this.#listeners.add(callback);
    this.#start();
    if (this.#view !== undefined) callback(this.#view);
    return () => this.#listeners.delete(callback);
  }

  close(): void {
    this.#closed = true;
    this.#sender.stop();
    for (const stop of this.#stops ?? []) stop();
    this.#listeners.clear();
  }

  #start(): void {
    if (this.#stops !== undefined || this.#closed) return;
    const { watchEntries, watchConnected, self } = this.#deps;
    this.#stops = [
      watchEntries((entries) => {
        this.#entries = entries;
        this.#sender.setEntry(entries.find((e) => e.clientID === self.clientID));
        this.#update();
      }),
      watchConnected((connected) => this.#sender.setConnected(connected)),
    ];
  }

  #update(): void {
    if (this.#entries === undefined) return;
    const view = buildPresence(this.#entries, this.#deps.self, this.#ownState);
    if (this.#view !== undefined && this.#deps.equalJSON(this.#view as never, view as never)) return;
    this.#view = view;
    for (const listener of [...this.#listeners]) {
      try {
        listener(view);
      } catch (error) {
        this.#deps.onError('A presence callback threw', error);
      }
    }
  }
}
