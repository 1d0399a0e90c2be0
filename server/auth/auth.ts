import type { ReadonlyJSONValue } from '../../protocol/json';

/** Claims of a verified token (or what an auth webhook answered). */
export type AuthClaims = Readonly<Record<string, ReadonlyJSONValue>>;

/** Who a connection acts for. */
export interface AuthResult {
  readonly userID: string;
  /** Seen by server mutators as `tx.auth.claims`. @default {} */
  readonly claims?: AuthClaims;
}

/** What server mutators see as `tx.auth`. */
export interface AuthData {
  readonly userID: string;
  readonly claims: AuthClaims;
}

/**
 * Decides whether a token may connect to a room; null (or a throw) refuses
 * with Unauthorized. It is only called with a non-empty token: a missing,
 * empty or undecodable one is refused before it (or, with `allowAnonymous`,
 * connects as ANONYMOUS_USER_ID).
 */
export type AuthHandler = (token: string, roomID: string) => AuthResult | null | Promise<AuthResult | null>;

export const ANONYMOUS_USER_ID = 'anonymous';

/**
 * The development handler: any non-empty token is the user id. Anyone can
 * claim to be anyone: never use it where tokens matter.
 */
export const devAuthHandler: AuthHandler = (token) => ({ userID: token });
