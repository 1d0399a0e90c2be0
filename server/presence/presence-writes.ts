import type { Mutation } from '../../src/protocol';
import { entryWithState, presenceEntry, presenceKey, readPresenceEntry, type PresenceEntry } from '../../src/presence/presence-entry';
import { presenceStateOfArgs } from '../../src/presence/presence-state';
import type { AuthData } from '../auth/auth';
import type { BatchWriter } from '../batch-writer';
import type { PresenceChange } from './presence-change';

function storedEntry(writer: BatchWriter, clientID: string): PresenceEntry | undefined {
  const key = presenceKey(clientID);
  return readPresenceEntry(key, writer.data.get(key));
}

/**
 * Writes a batch's joins and leaves; returns whether anything was written.
 * A join keeps the state of an entry still there (a reconnect within the
 * grace period, perhaps through another node) and only takes it over for its
 * node; a leave removes the entry only while it names the leaving node.
 */
export function writePresenceChanges(writer: BatchWriter, changes: readonly PresenceChange[]): boolean {
  let wrote = false;
  for (const change of changes) {
    const existing = storedEntry(writer, change.clientID);
    const key = presenceKey(change.clientID);
    if (change.kind === 'join') {
      if (existing !== undefined && existing.node === change.node && existing.userID === change.userID) continue;
      writer.write(key, presenceEntry(change.clientID, change.userID, existing?.state ?? null, change.node));
      wrote = true;
    } else if (existing !== undefined && existing.node === change.node) {
      writer.write(key, undefined);
      wrote = true;
    }
  }
  if (wrote) writer.endMutation();
  return wrote;
}

/**
 * The built-in presence mutation, run natively: sets the state of the
 * pushing client's entry, with the user id of the server's auth. A client
 * that is not present (e.g. a closed tab's mutation pushed by another tab)
 * has no entry, and nothing is written. Throws PresenceStateError for args
 * that are not `{state}` with a state small enough.
 */
export function setPresenceNatively(writer: BatchWriter, m: Mutation, auth: AuthData): void {
  const { value } = presenceStateOfArgs(m.args);
  const next = entryWithState(storedEntry(writer, m.clientID), value, auth.userID);
  if (next !== undefined) writer.write(presenceKey(m.clientID), next);
}
