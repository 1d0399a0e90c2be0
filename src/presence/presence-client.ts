import type { ReadonlyJSONValue } from '../../protocol/json';
import type { Clock, Timers } from '../connection/environment';
import type { Store } from '../db/store';
import type { ReadTransaction } from '../db/transaction-types';
import type { PresenceEntry } from './presence-entry';
import { PresenceSender, type PresenceSenderDeps } from './presence-sender';
import type { CheckedPresenceState } from './presence-state';
import { buildPresence, type Presence, type PresenceSelf } from './presence-view';
import type { PresenceHost } from './reflect-presence';

/** What a client's presence takes from the start-up code to run against its client (reflect-presence.ts hands it over). */
export interface PresenceKit {
  /** deepEqualJSON. */
  readonly equalJSON: PresenceSenderDeps['equalJSON'];
  /** PRESENCE_SEND_INTERVAL_MS. */
  readonly sendIntervalMs: number;
  /** PRESENCE_KEY_PREFIX: where the presence entries are stored. */
  readonly keyPrefix: string;
  /** readPresenceEntry: the entry stored at a key, or undefined when it is not one. */
  readonly readEntry: (key: string, value: ReadonlyJSONValue | undefined) => PresenceEntry | undefined;
  /** PRESENCE_MUTATION_NAME. */
  readonly mutationName: string;
}

/** The stored presence entries (values that are not entries are left out). */
async function readPresenceEntries(tx: ReadTransaction, kit: PresenceKit): Promise<PresenceEntry[]> {
  const entries: PresenceEntry[] = [];
  for await (const [key, value] of tx.scan({ prefix: kit.keyPrefix }).entries()) {
    const entry = kit.readEntry(key, value);
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}

/**
 * What a client's presence needs. It is a lazy chunk with the sender and the
 * view (reflect-presence.ts loads it at the first setPresence or
 * subscribeToPresence), so what it uses of the start-up code (JSON equality,
 * the send interval, how entries are stored: PresenceKit) comes in here rather
 * than by import: a chunk importing
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

  /**
   * The presence of `host`: its view read from the host's store, its state
   * sent with the built-in mutation on `store`, errors to `onError`.
   */
  static forHost<C extends PresenceClient>(
    this: new (deps: PresenceClientDeps) => C,
    host: PresenceHost,
    environment: { readonly clock: Clock; readonly timers: Timers },
    store: Promise<Pick<Store, 'mutate'>>,
    onError: (message: string, error: unknown) => void,
    kit: PresenceKit,
  ): C {
    return new this({
      self: { clientID: host.clientID, userID: host.userID },
      clock: environment.clock,
      timers: environment.timers,
      equalJSON: kit.equalJSON,
      sendIntervalMs: kit.sendIntervalMs,
      watchEntries: (onData) =>
        host.subscribe((tx) => readPresenceEntries(tx, kit), { onData, onError: (error) => onError('Could not read who is present', error) }),
      watchConnected: (onChange) => {
        onChange(host.connectionStatus.state === 'connected');
        return host.onConnectionStatusChange((status) => onChange(status.state === 'connected'));
      },
      mutate: async (state: ReadonlyJSONValue) => (await store).mutate(kit.mutationName, { state }),
      onError,
    });
  }

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
