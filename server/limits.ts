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
/**
 * A mutation that would take a room over this many bytes is skipped. A room
 * counts what its live entries add to a catch-up poke (each put operation
 * with its escaped key and JSON text, in UTF-8), so its catch-up stays this
 * size: far under what one poke can carry (a JS string holds at most ~512 MB).
 */
export const DEFAULT_MAX_ROOM_BYTES = 64 * 1024 * 1024;
/** Sockets one client address may hold open at once (a proxy's clients each count: see trustedProxies); more are refused with HTTP 429. */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 1000;
/** New client records one user may add to a room per NEW_CLIENT_WINDOW_MS (by connecting, or pushing for a client id the room has not seen). */
export const DEFAULT_NEW_CLIENTS_PER_USER = 2000;
export const NEW_CLIENT_WINDOW_MS = 60 * 60 * 1000;
/** Rooms stored in total beyond which connects do not create new ones. */
export const DEFAULT_MAX_ROOMS = 10_000;
/** Rooms one user, and one client address, may create by connecting, per window. */
export const DEFAULT_ROOMS_PER_USER = 100;
export const DEFAULT_ROOMS_PER_ADDRESS = 100;
export const DEFAULT_ROOM_QUOTA_WINDOW_MS = 60 * 60 * 1000;
/**
 * Per-connection rate limits (back-pressure beyond them). The burst lets a
 * client back from a long offline session (100,000 mutations) drain at once;
 * the room's CPU budget still keeps it from starving other rooms.
 */
export const DEFAULT_MUTATIONS_PER_SECOND = 20_000;
export const DEFAULT_MUTATION_BURST = 100_000;
export const DEFAULT_BYTES_PER_SECOND = 8 * 1024 * 1024;
export const DEFAULT_BYTE_BURST = 16 * 1024 * 1024;
/** A connection that sends nothing (no frame, no pong) for this long is closed. Clients ping every 5 s when quiet. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
/** A room runs at most this long before letting other rooms and sockets go. */
export const DEFAULT_SLICE_MS = 10;
/** CPU one room may use per budget window while other rooms of its thread wait. */
export const DEFAULT_ROOM_CPU_BUDGET_MS = 500;
export const ROOM_CPU_BUDGET_WINDOW_MS = 1000;

/** The longest delay a timer takes (Node fires a longer one after 1 ms): the bound of every option that is a timer's delay. */
export const MAX_TIMER_MS = 2_147_483_647;
