/**
 * The business constants and limits of SPEC.md §9, one typed module.
 * Every other part of the project reads them from here; names carry their unit.
 */

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const MIB = 1024 * 1024;

/** Time allowed between opening the socket and the server's `connected`. */
export const CONNECT_TIMEOUT_MS = 10 * SECOND_MS;
/** A ping is sent after this much quiet while connected. */
export const PING_INTERVAL_MS = 5 * SECOND_MS;
/** No pong within this long after a ping disconnects. */
export const PONG_DEADLINE_MS = 2 * SECOND_MS;
/** A page hidden for this long disconnects. */
export const HIDDEN_DISCONNECT_DELAY_MS = 5 * SECOND_MS;
/** Reconnect back-off: first delay, doubled per consecutive error. */
export const RECONNECT_BACKOFF_INITIAL_MS = 5 * SECOND_MS;
/** Reconnect back-off: the cap. */
export const RECONNECT_BACKOFF_MAX_MS = 60 * SECOND_MS;
/** A mutation-recovery pull unanswered for this long fails with PullTimeout. */
export const RECOVERY_PULL_TIMEOUT_MS = 5 * SECOND_MS;
/** Default pull interval of the sync library (the socket client is poked instead). */
export const DEFAULT_PULL_INTERVAL_MS = 60 * SECOND_MS;
/** Default push delay of the sync library. */
export const DEFAULT_PUSH_DELAY_MS = 10;
/** Push delay the collaboration client uses. */
export const REFLECT_PUSH_DELAY_MS = 0;
/** Request retry delay bounds of the sync library. */
export const REQUEST_RETRY_MIN_DELAY_MS = 30;
export const REQUEST_RETRY_MAX_DELAY_MS = 60 * SECOND_MS;
/** Request retry delay bounds the collaboration client uses. */
export const REFLECT_REQUEST_RETRY_MIN_DELAY_MS = 0;
export const REFLECT_REQUEST_RETRY_MAX_DELAY_MS = 0;
/** Consecutive re-authentication retries before the client stops retrying on its own. */
export const MAX_REAUTH_RETRIES = 8;
/** Client heartbeat interval. */
export const HEARTBEAT_INTERVAL_MS = 60 * SECOND_MS;
/** Client garbage collection interval. */
export const CLIENT_GC_INTERVAL_MS = 5 * MINUTE_MS;
/** Clients silent for longer than this are collected. */
export const CLIENT_MAX_INACTIVE_MS = 7 * DAY_MS;
/** Client-group garbage collection interval. */
export const CLIENT_GROUP_GC_INTERVAL_MS = 5 * MINUTE_MS;
/** Old-database cleanup: first run after this delay. */
export const OLD_DB_CLEANUP_INITIAL_DELAY_MS = 5 * MINUTE_MS;
/** Old-database cleanup: then every this often. */
export const OLD_DB_CLEANUP_INTERVAL_MS = 12 * HOUR_MS;
/** Old-database cleanup: databases unused for this long are deleted. */
export const OLD_DB_CLEANUP_MAX_AGE_MS = 30 * DAY_MS;
/** Old-database cleanup: the shorter threshold (databases without pending mutations). */
export const OLD_DB_CLEANUP_MAX_AGE_NO_PENDING_MS = 14 * DAY_MS;
/** Licensing is disabled in this client; kept for completeness of SPEC.md §9. */
export const TEST_LICENSE_EXPIRY_MS = 5 * MINUTE_MS;
/** Licensing is disabled in this client; kept for completeness of SPEC.md §9. */
export const LICENSE_ACTIVE_PING_INTERVAL_MS = 24 * HOUR_MS;
/** Memory cache of the local store. */
export const STORE_MEMORY_CACHE_BYTES = 100 * MIB;
/** Cache used while recovering other client groups' mutations. */
export const RECOVERY_CACHE_BYTES = 10 * MIB;
/** A multi-tab refresh gathers at most this many bytes of chunks. */
export const REFRESH_MAX_GATHER_BYTES = 5 * MIB;
/** B+tree node size range, by estimated encoded size. */
export const BTREE_MIN_NODE_BYTES = 8192;
export const BTREE_MAX_NODE_BYTES = 16384;
/** Persist and refresh run at least this far apart. */
export const PERSIST_MIN_INTERVAL_MS = 1 * SECOND_MS;
/** Persist and refresh wait this long for more work before running. */
export const PERSIST_WAIT_MS = 500;
/** The time-to-connect metric reads this until the first connect. */
export const INITIAL_TIME_TO_CONNECT_MS = 100_000;
/** Reference counts of stored chunks are integers in [0, REF_COUNT_MAX]. */
export const REF_COUNT_MAX = 65_535;
/** The push frame format version. */
export const PUSH_VERSION = 1;
/**
 * Deepest nesting of a JSON value (mutation args, stored values, patch
 * values): a scalar is depth 0, `[]` and `{}` are 1. Deeper values are
 * refused by both sides, so no copy, encode or decode of user data can run
 * out of stack.
 */
export const MAX_JSON_VALUE_DEPTH = 100;
/** Nesting of a frame around its values (`["push",{"mutations":[{"args":…}]}]` is 4 deep). */
export const FRAME_ENVELOPE_DEPTH = 4;
