/** Defaults of the server's limits (server options; not protocol constants). */

/** Largest accepted frame (ws maxPayload); a larger one closes the socket with 1009. */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;
/** Most mutations accepted in one push frame. */
export const DEFAULT_MAX_MUTATIONS_PER_PUSH = 1000;
/** A connection whose unsent output exceeds this is dropped instead of growing memory. */
export const DEFAULT_MAX_SEND_BUFFER_BYTES = 8 * 1024 * 1024;
/** Tombstones kept per room for catch-up deletes; older ones are dropped (catch-up then starts with clear). */
export const DEFAULT_MAX_TOMBSTONES_PER_ROOM = 10_000;
/** Largest admin API request body. */
export const MAX_ADMIN_BODY_BYTES = 64 * 1024;
/** A mutator still running after this long is failed and skipped. */
export const DEFAULT_MUTATOR_TIMEOUT_MS = 5000;
