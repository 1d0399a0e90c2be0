import type { LogContext, LogLevel, LogSink } from './log-sink';

/** The part of `console` the console sink writes to (injectable for tests). */
export interface ConsoleLike {
  error(...args: unknown[]): void;
  /** Absent in older test doubles: warnings then go to `error`. */
  warn?(...args: unknown[]): void;
  info(...args: unknown[]): void;
  debug(...args: unknown[]): void;
}

/** Writes to the console, context first as `key=value` pairs. The default sink. */
export function createConsoleSink(target: ConsoleLike = console): LogSink {
  return {
    log(level: LogLevel, context: LogContext | undefined, ...args: unknown[]): void {
      const prefix = formatContext(context);
      const write = level === 'warn' ? (target.warn ?? target.error) : target[level];
      if (prefix === '') write.call(target, ...args);
      else write.call(target, prefix, ...args);
    },
  };
}

export function formatContext(context: LogContext | undefined): string {
  if (context === undefined) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(context)) {
    if (value !== undefined) parts.push(`${key}=${value}`);
  }
  return parts.join(' ');
}
