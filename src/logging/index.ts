export type { LogContext, LogLevel, LogSink } from './log-sink';
export { isLevelEnabled } from './log-level';
export { createConsoleSink, formatContext, type ConsoleLike } from './console-sink';
export { Logger, silentLogger, type LogFunction } from './logger';
