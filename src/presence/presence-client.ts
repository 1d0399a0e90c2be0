import type { ReadonlyJSONValue } from '../../protocol/json';
import type { Clock, Timers } from '../connection/environment';
import { deepEqualJSON } from '../db/json-value';
import type { PresenceEntry } from './presence-entry';
import { PresenceSender } from './presence-sender';
import { checkPresenceState } from './presence-state';
import { buildPresence, type Presence, type PresenceSelf } from './presence-view';

export interface PresenceClientDeps {
  readonly self: PresenceSelf;
  readonly clock: Clock;
  readonly timers: Timers;
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
    this.#sender = new PresenceSender(deps.clock, deps.timers, (state) => {
      deps.mutate(state.value).catch((error: unknown) => deps.onError('Could not set the presence state', error));
    });
  }

  /** Sets this client's presence state. Throws PresenceStateError (not JSON, too large); nothing changes then. */
  set(state: unknown): void {
    const checked = checkPresenceState(state);
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
    if (this.#view !== undefined && deepEqualJSON(this.#view as never, view as never)) return;
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
