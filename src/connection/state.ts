import type { ConnectionErrorKind } from './errors';

export type Phase = 'disconnected' | 'connecting' | 'connected' | 'closed';

/** Why a disconnected client does not try to connect on its own. */
export type HaltReason =
  /** MAX_REAUTH_RETRIES re-authentications failed in a row; resumes on reconnect(), visibility or online. */
  | 'ReauthLimit'
  /** The server does not support this client's protocol version. */
  | 'UpdateNeeded'
  /** The server or the store lost this client's state. */
  | 'ClientStateNotFound'
  /** The app called disconnect(); only reconnect() resumes. */
  | 'ClientDisconnected';

/** What a disconnected client is waiting for before its next connect. */
export type Waiting = 'start' | 'visible' | 'backoff' | 'halted' | 'none';

export interface ConnectionState {
  readonly phase: Phase;
  readonly waiting: Waiting;
  readonly halt: HaltReason | null;
  /** Id of the current socket (increasing; 0 before the first). Events of other sockets are stale. */
  readonly socketID: number;
  /** Our wsid for the current socket, once created. */
  readonly wsid: string | null;
  /** The current socket is open or opening (its events count). */
  readonly socketLive: boolean;
  /** Id of the last token request; its answer counts only while awaitingToken. */
  readonly tokenRequestID: number;
  readonly awaitingToken: boolean;
  readonly token: string | undefined;
  readonly haveToken: boolean;
  /** The next connect must obtain a fresh token first. */
  readonly needsFreshToken: boolean;
  readonly visible: boolean;
  readonly networkOnline: boolean;
  /** The public online flag. */
  readonly online: boolean;
  /** Failures since the last successful connect (drives the back-off). */
  readonly errorCount: number;
  /** Auth failures in a row (each one is a re-authentication retry, up to the cap). */
  readonly authFailures: number;
  /** Monotonic time the current connect attempt started. */
  readonly attemptStartedAt: number;
  readonly lastDisconnectReason: ConnectionErrorKind | null;
}

export function initialState(visible: boolean, networkOnline: boolean): ConnectionState {
  return {
    phase: 'disconnected',
    waiting: 'start',
    halt: null,
    socketID: 0,
    wsid: null,
    socketLive: false,
    tokenRequestID: 0,
    awaitingToken: false,
    token: undefined,
    haveToken: false,
    needsFreshToken: false,
    visible,
    networkOnline,
    online: false,
    errorCount: 0,
    authFailures: 0,
    attemptStartedAt: 0,
    lastDisconnectReason: null,
  };
}
