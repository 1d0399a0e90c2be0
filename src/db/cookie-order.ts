/**
 * Which of two server states is newer, by cookie. The protocol's cookies are
 * integers (the room version) or null before any state; strings and objects
 * with a numeric or string `order` compare too, so other servers' cookies work.
 */
import type { Cookie } from './commit';

/** Negative when `a` is older than `b`, positive when newer, 0 when the same. */
export function compareCookies(a: Cookie, b: Cookie): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  const x = orderOf(a);
  const y = orderOf(b);
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  const sx = String(x);
  const sy = String(y);
  return sx < sy ? -1 : sx > sy ? 1 : 0;
}

function orderOf(cookie: Cookie): unknown {
  if (typeof cookie === 'object' && cookie !== null && !Array.isArray(cookie) && 'order' in cookie) return cookie.order;
  return cookie;
}
