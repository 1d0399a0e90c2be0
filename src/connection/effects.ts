import type { LogLevel } from '../logging/log-sink';
import type { PokeBody, PullResponseBody } from '../protocol/generated/types';
import type { ConnectionError } from './errors';
import type { InvalidMessageError } from '../protocol/protocol-error';
import type { TimerName } from './events';
import type { HaltReason } from './state';

/** What `transition` asks the run loop to do, in order. */
export type ConnectionEffect =
  /** Call the auth option (fresh: after an auth error) and report with tokenObtained/tokenFailed. */
  | { readonly type: 'fetchToken'; readonly requestID: number; readonly fresh: boolean }
  /** Build the connect URL from the store's cookie and lmid, open the socket, report socketCreated. */
  | { readonly type: 'openSocket'; readonly socketID: number; readonly token: string | undefined }
  | { readonly type: 'closeSocket'; readonly socketID: number; readonly reason: string }
  | { readonly type: 'sendPing'; readonly socketID: number }
  | { readonly type: 'startTimer'; readonly name: TimerName; readonly delayMs: number }
  | { readonly type: 'cancelTimer'; readonly name: TimerName }
  /** The socket is connected: start pushing from the first pending mutation. */
  | { readonly type: 'connected'; readonly socketID: number; readonly timeToConnectMs: number }
  /** The socket is gone: drop its queued pokes, fail its pulls. */
  | { readonly type: 'disconnected'; readonly socketID: number; readonly error: ConnectionError | InvalidMessageError }
  | { readonly type: 'connectFailed'; readonly error: ConnectionError | InvalidMessageError }
  | { readonly type: 'poke'; readonly socketID: number; readonly body: PokeBody }
  | { readonly type: 'pullResponse'; readonly socketID: number; readonly body: PullResponseBody }
  | { readonly type: 'onlineChange'; readonly online: boolean }
  | { readonly type: 'halted'; readonly reason: HaltReason; readonly error: ConnectionError | InvalidMessageError | undefined }
  | { readonly type: 'updateNeeded' }
  | { readonly type: 'clientGroupUnknown' }
  | { readonly type: 'clientStateNotFound' }
  /** The client is closed: reject whatever still waits. */
  | { readonly type: 'closed' }
  | { readonly type: 'log'; readonly level: LogLevel; readonly message: string; readonly details?: unknown };
