import type { Downstream } from '../protocol/messages';
import type { InvalidMessageError } from '../protocol/protocol-error';
import type { ConnectionError } from './errors';

export type TimerName = 'connectTimeout' | 'ping' | 'pongDeadline' | 'hiddenDelay' | 'backoff';

/** Everything that can happen to the connection. Each is handled by `transition`. */
export type ConnectionEvent =
  /** Begin connecting (once, at start-up). */
  | { readonly type: 'start' }
  /** The app asks to reconnect: resumes a halted client, skips a back-off wait. */
  | { readonly type: 'reconnect' }
  /** The app goes offline until it calls reconnect(). */
  | { readonly type: 'userDisconnect' }
  /** The client is closed for good. */
  | { readonly type: 'close' }
  /** Something above the machine ends the socket (an out-of-order poke, a failed send). */
  | { readonly type: 'disconnect'; readonly error: ConnectionError }
  /** The store has no state for this client. */
  | { readonly type: 'clientStateNotFound' }
  | { readonly type: 'visibility'; readonly visible: boolean }
  | { readonly type: 'network'; readonly online: boolean }
  | { readonly type: 'tokenObtained'; readonly requestID: number; readonly token: string | undefined }
  | { readonly type: 'tokenFailed'; readonly requestID: number; readonly error: unknown }
  | { readonly type: 'socketCreated'; readonly socketID: number; readonly wsid: string }
  | { readonly type: 'socketOpen'; readonly socketID: number }
  | { readonly type: 'socketMessage'; readonly socketID: number; readonly message: Downstream }
  | { readonly type: 'socketInvalidMessage'; readonly socketID: number; readonly error: InvalidMessageError }
  | { readonly type: 'socketError'; readonly socketID: number }
  | { readonly type: 'socketClose'; readonly socketID: number; readonly code: number; readonly reason: string; readonly wasClean: boolean }
  | { readonly type: 'timer'; readonly name: TimerName };
