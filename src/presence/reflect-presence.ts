import type { ReadonlyJSONValue } from '../../protocol/json';
import { PRESENCE_KEY_PREFIX, PRESENCE_MUTATION_NAME } from '../../protocol/presence';
import type { Clock, Timers } from '../connection/environment';
import { deepEqualJSON } from '../db/json-value';
import type { Store } from '../db/store';
import type { ReadTransaction } from '../db/transaction-types';
import type { PresenceClient } from './presence-client';
import { readPresenceEntry, type PresenceEntry } from './presence-entry';
import { checkPresenceState } from './presence-state';
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

/** The stored presence entries (values that are not entries are left out). */
export async function readPresenceEntries(tx: ReadTransaction): Promise<PresenceEntry[]> {
  const entries: PresenceEntry[] = [];
  for await (const [key, value] of tx.scan({ prefix: PRESENCE_KEY_PREFIX }).entries()) {
    const entry = readPresenceEntry(key, value);
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}

/**
 * The presence of a client: its view read from its store, its state sent with
 * the built-in mutation. Its code (presence-client.ts, with the sender and the
 * view) is loaded with import() at the first set or subscribe, so a page that
 * never uses presence never loads it; calls made meanwhile run, in order, once
 * it is loaded. A state that is not JSON or too large is refused at once.
 */
export function presenceOf(
  host: PresenceHost,
  environment: { readonly clock: Clock; readonly timers: Timers },
  store: Promise<Store>,
  onError: (message: string, error: unknown) => void,
): ReflectPresence {
  let client: PresenceClient | undefined;
  let loading: Promise<void> | undefined;
  let closed = false;
  const waiting: ((client: PresenceClient) => void)[] = [];
  const withClient = (use: (client: PresenceClient) => void) => {
    if (client !== undefined) return use(client);
    waiting.push(use);
    loading ??= import('./presence-client').then(
      ({ PresenceClient }) => {
        if (closed) return;
        client = new PresenceClient({
          self: { clientID: host.clientID, userID: host.userID },
          clock: environment.clock,
          timers: environment.timers,
          equalJSON: deepEqualJSON,
          sendIntervalMs: PRESENCE_SEND_INTERVAL_MS,
          watchEntries: (onData) => host.subscribe(readPresenceEntries, { onData, onError: (error) => onError('Could not read who is present', error) }),
          watchConnected: (onChange) => {
            onChange(host.connectionStatus.state === 'connected');
            return host.onConnectionStatusChange((status) => onChange(status.state === 'connected'));
          },
          mutate: async (state: ReadonlyJSONValue) => (await store).mutate(PRESENCE_MUTATION_NAME, { state }),
          onError,
        });
        for (const use of waiting.splice(0)) use(client);
      },
      (error: unknown) => onError('Could not load the presence code', error),
    );
  };
  return {
    set(state) {
      const checked = checkPresenceState(state);
      if (!closed) withClient((c) => c.set(checked));
    },
    subscribe(callback) {
      let stop: (() => void) | undefined;
      let unsubscribed = false;
      if (!closed) withClient((c) => !unsubscribed && (stop = c.subscribe(callback)));
      return () => {
        unsubscribed = true;
        stop?.();
      };
    },
    close() {
      closed = true;
      waiting.length = 0;
      client?.close();
    },
  };
}
