import { PRESENCE_KEY_PREFIX, PRESENCE_MUTATION_NAME } from '../../protocol/presence';
import type { Clock, TimerHandle, Timers } from '../connection/environment';
import { deepEqualJSON } from '../db/json-value';
import type { Store } from '../db/store';
import { lazyChunk } from '../lazy-chunk';
import type { ReadTransaction } from '../db/transaction-types';
import type { PresenceClient } from './presence-client';
import { readPresenceEntry } from './presence-entry';
import { checkPresenceState, type CheckedPresenceState } from './presence-state';
import type { Presence } from './presence-view';

/** A client sends its presence state at most this often; the last state set always goes. */
export const PRESENCE_SEND_INTERVAL_MS = 50;

/** What presence needs from the client it belongs to. */
export interface PresenceHost {
  readonly clientID: string;
  readonly userID: string;
  readonly connectionStatus: { readonly state: string };
  onConnectionStatusChange(listener: (status: { readonly state: string }) => void): () => void;
  subscribe<R>(body: (tx: ReadTransaction) => Promise<R>, options: { onData: (result: R) => void; onError?: (error: unknown) => void }): () => void;
}

/** A client's presence as Reflect uses it. */
export interface ReflectPresence {
  /** Throws PresenceStateError (not JSON, too large) at once; nothing changes then. */
  set(state: unknown): void;
  subscribe(callback: (presence: Presence) => void): () => void;
  close(): void;
}

/** After a failed load of the presence code, the next try waits this long, doubled per failure in a row, at most PRESENCE_LOAD_RETRY_MAX_MS. */
export const PRESENCE_LOAD_RETRY_MS = 1_000;
export const PRESENCE_LOAD_RETRY_MAX_MS = 60_000;

type PresenceCode = typeof import('./presence-client');

/** The presence code (presence-client.ts), loaded once for every client of the page (a failed load is forgotten). */
export const loadPresenceCode = lazyChunk((): Promise<PresenceCode> => import('./presence-client'));

/**
 * The presence of a client: its view read from its store, its state sent with
 * the built-in mutation. Its code (presence-client.ts, with the sender and the
 * view) is loaded with import() at the first set or subscribe, so a page that
 * never uses presence never loads it. Until it is loaded, the last state set
 * and the subscriptions still open wait (a cursor set 60 times a second keeps
 * one state, not a queue), then go: the state first, then the subscriptions in
 * order. A failed load (the page offline, a chunk gone after a deploy) is
 * reported and tried again after a back-off (1 s doubled per failure, at most
 * a minute) while anything waits. A state that is not JSON or too large is
 * refused at once.
 */
export function presenceOf(
  host: PresenceHost,
  environment: { readonly clock: Clock; readonly timers: Timers },
  store: Promise<Pick<Store, 'mutate'>>,
  onError: (message: string, error: unknown) => void,
  load: () => Promise<PresenceCode> = loadPresenceCode,
): ReflectPresence {
  const loadCode = lazyChunk(load);
  let client: PresenceClient | undefined;
  let closed = false;
  let loading = false;
  let failures = 0;
  let retry: { readonly handle: TimerHandle } | undefined;
  /** The last state set before the code was loaded, if any. */
  let waitingState: { readonly state: CheckedPresenceState } | undefined;
  /** The subscriptions made before the code was loaded and not ended since. */
  const waitingSubscriptions = new Set<(client: PresenceClient) => void>();
  const waits = () => waitingState !== undefined || waitingSubscriptions.size > 0;

  const start = () => {
    if (loading || retry !== undefined || closed) return;
    loading = true;
    loadCode().then(
      ({ PresenceClient }) => {
        loading = false;
        if (closed) return;
        const c = (client = PresenceClient.forHost(host, environment, store, onError, {
          equalJSON: deepEqualJSON,
          sendIntervalMs: PRESENCE_SEND_INTERVAL_MS,
          keyPrefix: PRESENCE_KEY_PREFIX,
          readEntry: readPresenceEntry,
          mutationName: PRESENCE_MUTATION_NAME,
        }));
        const state = waitingState;
        waitingState = undefined;
        if (state !== undefined) c.set(state.state);
        const subscriptions = [...waitingSubscriptions];
        waitingSubscriptions.clear();
        for (const subscribe of subscriptions) subscribe(c);
      },
      (error: unknown) => {
        loading = false;
        failures++;
        onError('Could not load the presence code', error);
        if (closed) return;
        // Nothing waits: this episode ends, and the next call starts a new one from the first back-off.
        if (!waits()) return void (failures = 0);
        const delayMs = Math.min(PRESENCE_LOAD_RETRY_MS * 2 ** Math.min(failures - 1, 30), PRESENCE_LOAD_RETRY_MAX_MS);
        retry = {
          handle: environment.timers.setTimeout(() => {
            retry = undefined;
            if (waits()) start();
            else failures = 0;
          }, delayMs),
        };
      },
    );
  };

  return {
    set(state) {
      const checked = checkPresenceState(state);
      if (closed) return;
      if (client !== undefined) return client.set(checked);
      waitingState = { state: checked };
      start();
    },
    subscribe(callback) {
      if (closed) return () => {};
      if (client !== undefined) return client.subscribe(callback);
      let stop: (() => void) | undefined;
      const subscribe = (c: PresenceClient) => (stop = c.subscribe(callback));
      waitingSubscriptions.add(subscribe);
      start();
      return () => {
        waitingSubscriptions.delete(subscribe);
        stop?.();
      };
    },
    close() {
      closed = true;
      waitingState = undefined;
      waitingSubscriptions.clear();
      if (retry !== undefined) environment.timers.clearTimeout(retry.handle);
      retry = undefined;
      client?.close();
    },
  };
}
