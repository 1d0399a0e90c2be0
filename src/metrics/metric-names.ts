/** Milliseconds from the start of a connect attempt to the server's `connected`. */
export const TIME_TO_CONNECT_MS = 'time_to_connect_ms';
/** The reason of the last failed connect attempt; clear after a successful connect. */
export const LAST_CONNECT_ERROR = 'last_connect_error';
