export { Connection, type ConnectionOptions, type UpdateNeededReason } from './connection';
export type { AuthOption } from './auth';
export type {
  Clock,
  ConnectionEnvironment,
  NetworkSource,
  RandomSource,
  TimerHandle,
  Timers,
  VisibilitySource,
} from './environment';
export type { SocketConstructor, SocketLike } from './socket';
export type { SyncTarget } from './sync-target';
export type { ConnectionState, HaltReason, Phase } from './state';
export {
  AuthError,
  ClientClosedError,
  ClientGroupUnknownError,
  CloseError,
  ConnectionError,
  HiddenError,
  PokeError,
  PullError,
  PushError,
  ReauthLimitError,
  ServerError,
  TimeoutError,
  UnexpectedBaseCookieError,
  type ConnectionErrorKind,
} from './errors';
export { alwaysOn, defaultEnvironment, documentVisibility, navigatorNetwork, reloadPage } from './default-environment';
export { MutationTooLargeError, PUSH_MAX_FRAME_BYTES, PUSH_MAX_MUTATIONS } from './push-limits';
