/** Where the store reports what it skips or recovers from. Compatible with kv's logger. */
export interface StoreLogger {
  error(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  debug?(message: string, ...details: unknown[]): void;
}
