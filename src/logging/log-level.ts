import type { LogLevel } from './log-sink';

const RANK: Readonly<Record<LogLevel, number>> = { error: 0, info: 1, debug: 2 };

/** Whether a logger at `threshold` writes a line of `level`. */
export function isLevelEnabled(threshold: LogLevel, level: LogLevel): boolean {
  return RANK[level] <= RANK[threshold];
}
