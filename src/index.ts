export {
  Reflect,
  storeName,
  type ConnectionStatus,
  type MakeMutator,
  type MakeMutators,
  type ReflectEnvironment,
  type ReflectOptions,
  type UpdateNeededReason,
} from './reflect';
export type { KvStoreOption } from './persist/local-stores';
export type { BroadcastChannelConstructor, BroadcastChannelLike } from './persist/tab-channel';
export type { AuthOption } from './connection/auth';
export type {
  Clock,
  ConnectionEnvironment,
  NetworkSource,
  RandomSource,
  Timers,
  VisibilitySource,
} from './connection/environment';
export type { SocketCloseEvent, SocketConstructor, SocketLike, SocketMessageEvent } from './connection/socket';
export {
  AuthError,
  ClientClosedError,
  ClientDisconnectedError,
  ClientGroupUnknownError,
  CloseError,
  ConnectionError,
  PokeError,
  PullError,
  PushError,
  ReauthLimitError,
  ServerError,
  TimeoutError,
  UnexpectedBaseCookieError,
  type ConnectionErrorKind,
} from './connection/errors';
export { MutationTooLargeError, PUSH_MAX_FRAME_BYTES, PUSH_MAX_MUTATIONS } from './connection/push-limits';
export { createConsoleSink, Logger, type LogContext, type LogLevel, type LogSink } from './logging/index';
export type { ConsoleLike } from './logging/console-sink';
export type { LogFunction } from './logging/logger';
export { noopMetrics, type Gauge, type Metrics, type StateMetric } from './metrics/metrics';
export { LAST_CONNECT_ERROR, TIME_TO_CONNECT_MS } from './metrics/metric-names';
export type {
  IndexKey,
  JSONValue,
  MutatorDefs,
  MutatorImpl,
  ReadonlyJSONValue,
  ReadTransaction,
  ScanIndexOptions,
  ScanIndexStartKey,
  ScanNoIndexOptions,
  ScanStartKey,
  ScanOptions,
  ScanResult,
  TransactionReason,
  WriteTransaction,
} from './db/transaction-types';
export type { SubscribeOptions } from './db/subscriptions';
export type { WatchCallback, WatchDiff, WatchDiffOp, WatchOptions } from './db/watch';
export type { IndexDefinition, IndexDefinitions } from './db/index-definition';
export { MemoryStore } from './kv/memory-kit';
export { PRESENCE_KEY_PREFIX, PRESENCE_MUTATION_NAME, PRESENCE_STATE_MAX_BYTES, RESERVED_KEY_PREFIX } from '../protocol/presence';
export { PresenceStateError, ReservedMutatorNameError, type PresenceStateProblem } from './presence/errors';
export type { PresenceEntry } from './presence/presence-entry';
export { PRESENCE_SEND_INTERVAL_MS } from './presence/reflect-presence';
export type { PresentClient, PresentUser, Presence } from './presence/presence-view';
export type { KvStore } from './kv/types';
