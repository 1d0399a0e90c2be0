import { isLevelEnabled } from './log-level';
import type { LogContext, LogLevel, LogSink } from './log-sink';

export type LogFunction = (...args: unknown[]) => void;

/**
 * A logger bound to a level, sinks and a context. A disabled level is
 * `undefined`, so `logger.debug?.(expensive())` costs nothing when off.
 */
export class Logger {
  readonly level: LogLevel;
  readonly context: LogContext | undefined;
  readonly error: LogFunction | undefined;
  readonly warn: LogFunction | undefined;
  readonly info: LogFunction | undefined;
  readonly debug: LogFunction | undefined;
  readonly #sinks: readonly LogSink[];

  constructor(level: LogLevel, sinks: readonly LogSink[], context?: LogContext) {
    this.level = level;
    this.context = context;
    this.#sinks = sinks;
    this.error = this.#writer('error');
    this.warn = this.#writer('warn');
    this.info = this.#writer('info');
    this.debug = this.#writer('debug');
  }

  /** A logger with `key=value` added to (or replaced in) the context. */
  withContext(key: string, value: string | number | undefined): Logger {
    return new Logger(this.level, this.#sinks, { ...this.context, [key]: value });
  }

  async flush(): Promise<void> {
    await Promise.all(this.#sinks.map((sink) => sink.flush?.()));
  }

  #writer(level: LogLevel): LogFunction | undefined {
    if (!isLevelEnabled(this.level, level) || this.#sinks.length === 0) return undefined;
    const sinks = this.#sinks;
    const context = this.context;
    return (...args: unknown[]) => {
      for (const sink of sinks) sink.log(level, context, ...args);
    };
  }
}

/** A logger that writes nothing. */
export const silentLogger: Logger = new Logger('error', []);
