export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** Structured logs: one JSON object per line, written with `write`; `fields` go on every line (after time, level and msg). */
export function createJSONLogger(options: {
  level: LogLevel;
  write: (line: string) => void;
  now: () => number;
  fields?: LogFields;
}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level);
  const log = (level: Exclude<LogLevel, 'silent'>) => (message: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const record: Record<string, unknown> = { time: new Date(options.now()).toISOString(), level, msg: message, ...options.fields };
    if (fields) for (const [k, v] of Object.entries(fields)) record[k] = v instanceof Error ? describeError(v) : v;
    options.write(`${safeStringify(record)}\n`);
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function describeError(error: Error): Record<string, unknown> {
  return { name: error.name, message: error.message, stack: error.stack };
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return JSON.stringify({ msg: 'unserializable log record' });
  }
}
