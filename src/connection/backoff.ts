import { RECONNECT_BACKOFF_INITIAL_MS, RECONNECT_BACKOFF_MAX_MS } from '../../protocol/constants';
import type { InvalidMessageError } from '../protocol/protocol-error';
import type { RandomSource } from './environment';
import { ServerError, type ConnectionError } from './errors';

/**
 * After a connected socket is lost, the client reconnects after a random
 * wait below this, so that a restarted server is not hit by all its clients
 * in the same millisecond.
 */
export const RECONNECT_JITTER_MAX_MS = 1000;

/** Ways a connected socket ends, seen by the client, that are the connection's loss rather than an error: it reconnects at once. */
const DROP_KINDS: ReadonlySet<string> = new Set([
  'CleanClose',
  'AbruptClose',
  'PingTimeout',
  // Sending failed: the socket was already gone.
  'PushFailed',
  // An out-of-order poke: the protocol's way back is a reconnect from the local cookie.
  'UnexpectedBaseCookie',
]);

/**
 * Whether a connected socket that ended with `error` was dropped (reconnect at
 * once) rather than failed (back off). An error frame is the server's
 * answer, whatever its kind: it keeps the back-off.
 */
export function isDrop(error: ConnectionError | InvalidMessageError): boolean {
  return !(error instanceof ServerError) && DROP_KINDS.has(error.kind);
}

/** The wait before reconnecting after a drop: [0, RECONNECT_JITTER_MAX_MS). */
export function reconnectJitterMs(random: RandomSource): number {
  return Math.floor(random() * RECONNECT_JITTER_MAX_MS);
}

/**
 * The wait before the next connect after `consecutiveErrors` failures in a row:
 * 0 for none, then the initial delay doubled per further error, capped.
 */
export function backoffDelayMs(consecutiveErrors: number): number {
  if (consecutiveErrors <= 0) return 0;
  const exponent = Math.min(consecutiveErrors - 1, 30);
  return Math.min(RECONNECT_BACKOFF_INITIAL_MS * 2 ** exponent, RECONNECT_BACKOFF_MAX_MS);
}
