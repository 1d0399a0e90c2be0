import type { ReadonlyJSONValue } from '../../protocol/json';
import { PRESENCE_KEY_PREFIX } from '../../protocol/presence';
import { deepEqualJSON } from '../db/json-value';

/** The value the server keeps at `PRESENCE_KEY_PREFIX + clientID` while the client is present. */
export type PresenceEntry = {
  readonly clientID: string;
  /** Who the server's auth says the client is. */
  readonly userID: string;
  /** What the client last set; null until it sets one. */
  readonly state: ReadonlyJSONValue;
  /** The server process that holds the client's connection. */
  readonly node: string;
};

export function presenceKey(clientID: string): string {
  return `${PRESENCE_KEY_PREFIX}${clientID}`;
}

/** The entry stored at `key`, or undefined when the key or the value is not a presence entry. */
export function readPresenceEntry(key: string, value: ReadonlyJSONValue | undefined): PresenceEntry | undefined {
  if (!key.startsWith(PRESENCE_KEY_PREFIX) || typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, ReadonlyJSONValue>;
  const clientID = key.slice(PRESENCE_KEY_PREFIX.length);
  if (v.clientID !== clientID || typeof v.userID !== 'string' || typeof v.node !== 'string') return undefined;
  return { clientID, userID: v.userID, state: v.state === undefined ? null : v.state, node: v.node };
}

export function presenceEntry(clientID: string, userID: string, state: ReadonlyJSONValue, node: string): PresenceEntry {
  return { clientID, userID, state, node };
}

/**
 * The entry with `state` set (and `userID` when given: the server's auth), or
 * undefined when nothing would change. A client that is not present has no
 * entry to set: undefined too.
 */
export function entryWithState(existing: PresenceEntry | undefined, state: ReadonlyJSONValue, userID?: string): PresenceEntry | undefined {
  if (existing === undefined) return undefined;
  const user = userID ?? existing.userID;
  if (user === existing.userID && deepEqualJSON(existing.state, state)) return undefined;
  return presenceEntry(existing.clientID, user, state, existing.node);
}
