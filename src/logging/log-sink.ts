import type { LogLevel as ProtocolLogLevel } from '../../protocol/client-options';

/**
 * How much a logger writes, and the level of a line: 'error' (something stopped
 * working), 'warn' (degraded, or a retry after a failure), 'info', 'debug'.
 */
export type LogLevel = ProtocolLogLevel | 'warn';

/** Key/value pairs a logger prepends to every line (roomID, clientID, wsid, requestID…). */
export type LogContext = Readonly<Record<string, string | number | undefined>>;

/** Where log lines go. `flush` lets a buffering sink (e.g. a remote one) send what it holds. */
export interface LogSink {
  log(level: LogLevel, context: LogContext | undefined, ...args: unknown[]): void;
  flush?(): Promise<void> | void;
}
