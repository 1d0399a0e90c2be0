import type { LogLevel } from './log-sink';

const RANK: Readonly<Record<LogLevel, number>> = { error: 0, warn: 1, info: 2, debug: 3 };

/** Whether a logger at `threshold` writes a line of `level`. */
export function isLevelEnabled(threshold: LogLevel, level: LogLevel): boolean {
  return RANK[level] <= RANK[threshold];
}
