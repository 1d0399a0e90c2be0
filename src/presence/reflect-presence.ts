import type { ReadonlyJSONValue } from '../../protocol/json';
import { PRESENCE_KEY_PREFIX, PRESENCE_MUTATION_NAME } from '../../protocol/presence';
import type { Clock, Timers } from '../connection/environment';
import type { Store } from '../db/store';
import type { ReadTransaction } from '../db/transaction-types';
import { PresenceClient } from './presence-client';
import { readPresenceEntry, type PresenceEntry } from './presence-entry';

/** What presence needs from the client it belongs to. */
export interface PresenceHost {
  readonly clientID: string;
  readonly userID: string;
  readonly connectionStatus: { readonly state: string };
  onConnectionStatusChange(listener: (status: { readonly state: string }) => void): () => void;
  subscribe<R>(body: (tx: ReadTransaction) => Promise<R>, options: { onData: (result: R) => void; onError?: (error: unknown) => void }): () => void;
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

/** The presence of a client: its view read from its store, its state sent with the built-in mutation. */
export function presenceOf(
  host: PresenceHost,
  environment: { readonly clock: Clock; readonly timers: Timers },
  store: Promise<Store>,
  onError: (message: string, error: unknown) => void,
): PresenceClient {
  return new PresenceClient({
    self: { clientID: host.clientID, userID: host.userID },
    clock: environment.clock,
    timers: environment.timers,
    watchEntries: (onData) => host.subscribe(readPresenceEntries, { onData, onError: (error) => onError('Could not read who is present', error) }),
    watchConnected: (onChange) => {
      onChange(host.connectionStatus.state === 'connected');
      return host.onConnectionStatusChange((status) => onChange(status.state === 'connected'));
    },
    mutate: async (state: ReadonlyJSONValue) => (await store).mutate(PRESENCE_MUTATION_NAME, { state }),
    onError,
  });
}
