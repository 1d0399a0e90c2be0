import { RECONNECT_BACKOFF_INITIAL_MS, RECONNECT_BACKOFF_MAX_MS } from '../../protocol/constants';

/**
 * The wait before the next connect after `consecutiveErrors` failures in a row:
 * 0 for none, then the initial delay doubled per further error, capped.
 */
export function backoffDelayMs(consecutiveErrors: number): number {
  if (consecutiveErrors <= 0) return 0;
  const exponent = Math.min(consecutiveErrors - 1, 30);
  return Math.min(RECONNECT_BACKOFF_INITIAL_MS * 2 ** exponent, RECONNECT_BACKOFF_MAX_MS);
}
