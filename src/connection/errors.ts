import type { ErrorKind } from '../protocol/generated/types';

/** What went wrong: a protocol error kind, or a client-side condition. */
export type ConnectionErrorKind =
  | ErrorKind
  | 'CleanClose'
  | 'AbruptClose'
  | 'Hidden'
  | 'PushFailed'
  | 'PokeFailed'
  | 'NotConnected'
  | 'ClientStateNotFound'
  | 'ClientClosed'
  | 'ClientDisconnected';

/** Base of the connection's errors. Switch on `kind`. */
export class ConnectionError extends Error {
  readonly kind: ConnectionErrorKind;

  constructor(kind: ConnectionErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConnectionError';
    this.kind = kind;
  }
}

/** The server sent an error frame. */
export class ServerError extends ConnectionError {
  declare readonly kind: ErrorKind;

  constructor(kind: ErrorKind, message: string) {
    super(kind, message);
    this.name = 'ServerError';
  }
}

/** The server refused the auth token (Unauthorized, AuthInvalidated). */
export class AuthError extends ServerError {
  declare readonly kind: 'Unauthorized' | 'AuthInvalidated';

  constructor(kind: 'Unauthorized' | 'AuthInvalidated', message: string) {
    super(kind, message);
    this.name = 'AuthError';
  }
}

export function isAuthErrorKind(kind: string): kind is 'Unauthorized' | 'AuthInvalidated' {
  return kind === 'Unauthorized' || kind === 'AuthInvalidated';
}

export function serverError(kind: ErrorKind, message: string): ServerError {
  return isAuthErrorKind(kind) ? new AuthError(kind, message) : new ServerError(kind, message);
}

type TimeoutKind = 'ConnectTimeout' | 'PingTimeout' | 'PullTimeout';

const TIMEOUT_MESSAGES: Readonly<Record<TimeoutKind, string>> = {
  ConnectTimeout: 'Timed out waiting for the server to connect',
  PingTimeout: 'Timed out waiting for a pong',
  PullTimeout: 'Timed out waiting for a pull response',
};

/** No `connected`, pong or pull response in time. */
export class TimeoutError extends ConnectionError {
  declare readonly kind: TimeoutKind;

  constructor(kind: TimeoutKind) {
    super(kind, TIMEOUT_MESSAGES[kind]);
    this.name = 'TimeoutError';
  }
}

/** The socket closed under us. */
export class CloseError extends ConnectionError {
  declare readonly kind: 'CleanClose' | 'AbruptClose';
  readonly code: number | undefined;

  constructor(kind: 'CleanClose' | 'AbruptClose', code?: number, reason?: string) {
    super(kind, `Socket closed (${kind}${code === undefined ? '' : `, code ${code}`}${reason ? `: ${reason}` : ''})`);
    this.name = 'CloseError';
    this.code = code;
  }
}

/** A poke whose baseCookie is not the local cookie. */
export class UnexpectedBaseCookieError extends ConnectionError {
  declare readonly kind: 'UnexpectedBaseCookie';

  constructor(baseCookie: number | null, localCookie: number | null) {
    super('UnexpectedBaseCookie', `Poke out of order: baseCookie ${baseCookie} but the local cookie is ${localCookie}`);
    this.name = 'UnexpectedBaseCookieError';
  }
}

/** Sending a push frame failed; the mutations stay pending. */
export class PushError extends ConnectionError {
  declare readonly kind: 'PushFailed';

  constructor(options?: { cause?: unknown }) {
    super('PushFailed', 'Failed to push', options);
    this.name = 'PushError';
  }
}

/** Applying a poke to the store failed for another reason than its order. */
export class PokeError extends ConnectionError {
  declare readonly kind: 'PokeFailed';

  constructor(options?: { cause?: unknown }) {
    super('PokeFailed', 'Failed to apply a poke', options);
    this.name = 'PokeError';
  }
}

/** A mutation-recovery pull failed: `reason` says why (PullTimeout, a disconnect, …). */
export class PullError extends ConnectionError {
  constructor(reason: ConnectionErrorKind, options?: { cause?: unknown }) {
    super(reason, 'Failed to pull', options);
    this.name = 'PullError';
  }
}

/** The server does not know the client group: it is disabled and stops syncing. */
export class ClientGroupUnknownError extends ConnectionError {
  declare readonly kind: 'ClientNotFound';
  readonly clientGroupID: string;

  constructor(clientGroupID: string) {
    super('ClientNotFound', `Client group ${clientGroupID} is unknown on server`);
    this.name = 'ClientGroupUnknownError';
    this.clientGroupID = clientGroupID;
  }
}

/** The client was closed while something waited on the connection. */
export class ClientClosedError extends ConnectionError {
  declare readonly kind: 'ClientClosed';

  constructor() {
    super('ClientClosed', 'The client is closed');
    this.name = 'ClientClosedError';
  }
}

/** The page stayed hidden; not a failure, but it ends the socket. */
export class HiddenError extends ConnectionError {
  declare readonly kind: 'Hidden';

  constructor() {
    super('Hidden', 'The page was hidden');
    this.name = 'HiddenError';
  }
}

/** Re-authentication failed MAX_REAUTH_RETRIES times in a row; the client waits for a nudge. */
export class ReauthLimitError extends ConnectionError {
  constructor(retries: number, cause: ConnectionError) {
    super(cause.kind, `Authentication failed after ${retries} re-authentication retries; waiting for reconnect()`, { cause });
    this.name = 'ReauthLimitError';
  }
}

/** The app asked to go offline (disconnect()); reconnect() brings it back. */
export class ClientDisconnectedError extends ConnectionError {
  declare readonly kind: 'ClientDisconnected';

  constructor() {
    super('ClientDisconnected', 'Disconnected by the app');
    this.name = 'ClientDisconnectedError';
  }
}
