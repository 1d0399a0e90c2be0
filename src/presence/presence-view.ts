import type { ReadonlyJSONValue } from '../../protocol/json';
import type { PresenceEntry } from './presence-entry';

/** One client (a tab, a device, a bot) present in the room. */
export interface PresentClient<S = ReadonlyJSONValue> {
  readonly clientID: string;
  /** Who the server's auth says it is: the same for every tab of one person. */
  readonly userID: string;
  /** What the client set with `setPresence`; null until it sets one. */
  readonly state: S | null;
  /** This client. */
  readonly isSelf: boolean;
}

/** One user present in the room, with all of their clients. */
export interface PresentUser<S = ReadonlyJSONValue> {
  readonly userID: string;
  /** At least one, by clientID. */
  readonly clients: readonly PresentClient<S>[];
  /** The user this client is signed in as (also when only another tab of theirs is present). */
  readonly isSelf: boolean;
}

/** Who is in the room: every client, and the same grouped by user (one entry per person, however many tabs). */
export interface Presence<S = ReadonlyJSONValue> {
  /** By userID, then clientID. */
  readonly clients: readonly PresentClient<S>[];
  /** By userID. */
  readonly users: readonly PresentUser<S>[];
}

export const EMPTY_PRESENCE: Presence<never> = Object.freeze({ clients: Object.freeze([]), users: Object.freeze([]) });

/** This client, as the view marks it. */
export interface PresenceSelf {
  readonly clientID: string;
  /** The user id the client was given; the server's (from its entry) wins once known. */
  readonly userID: string;
}

/**
 * The view of the stored entries. `ownState`, when given, replaces this
 * client's stored state: what the app set last shows at once, before the
 * server has it.
 */
export function buildPresence(entries: readonly PresenceEntry[], self: PresenceSelf, ownState: ReadonlyJSONValue | undefined): Presence {
  const sorted = [...entries].sort((a, b) => compare(a.userID, b.userID) || compare(a.clientID, b.clientID));
  const selfUserID = entries.find((e) => e.clientID === self.clientID)?.userID ?? self.userID;
  const clients = sorted.map((e): PresentClient => {
    const isSelf = e.clientID === self.clientID;
    return { clientID: e.clientID, userID: e.userID, state: isSelf && ownState !== undefined ? ownState : e.state, isSelf };
  });
  const users: PresentUser[] = [];
  for (const client of clients) {
    const last = users[users.length - 1];
    if (last !== undefined && last.userID === client.userID) (last.clients as PresentClient[]).push(client);
    else users.push({ userID: client.userID, clients: [client], isSelf: client.userID === selfUserID });
  }
  return { clients, users };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
