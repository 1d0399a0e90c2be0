/**
 * Presence as data: the keys the server maintains for the clients connected
 * to a room, and the built-in mutation that sets a client's presence state.
 * Clients that know nothing of presence see these keys as ordinary data.
 */

/** Keys under this prefix are written by the server only; a mutator's write there is refused. */
export const RESERVED_KEY_PREFIX = '_roomsync/';

/**
 * One key per connected client: `PRESENCE_KEY_PREFIX + clientID` →
 * `{clientID, userID, state, node}` (userID from the server's auth, state set
 * by the client, null until then, node the server process holding its socket).
 */
export const PRESENCE_KEY_PREFIX = `${RESERVED_KEY_PREFIX}presence/`;

/** The built-in mutation `{state}` that sets the pushing client's presence state; the server implements it natively. */
export const PRESENCE_MUTATION_NAME = `${RESERVED_KEY_PREFIX}setPresence`;

/** Largest presence state, as UTF-8 JSON text. */
export const PRESENCE_STATE_MAX_BYTES = 2048;
