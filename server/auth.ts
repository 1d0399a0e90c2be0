/** Who a connection acts for. */
export interface AuthResult {
  readonly userID: string;
}

/**
 * Decides whether a token may connect to a room. `token` is undefined when
 * the client sent no subprotocol. Returning null refuses the connection.
 */
export type AuthHandler = (
  token: string | undefined,
  roomID: string,
) => AuthResult | null | Promise<AuthResult | null>;

export const ANONYMOUS_USER_ID = 'anonymous';

/**
 * The development handler: any non-empty token is the user id; no token
 * connects as the anonymous user. Never use it where tokens matter.
 */
export const devAuthHandler: AuthHandler = (token) => ({ userID: token ? token : ANONYMOUS_USER_ID });
