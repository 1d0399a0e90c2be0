import { describe, expect, it } from 'vitest';
import { FailureLog } from './failure-log';
import { LOG_LINES_PER_WINDOW, LOG_WINDOW_MS } from './log-budget';
import type { Logger } from './logger';

describe('FailureLog', () => {
  it('logs skipped mutations one by one up to a limit per window, then one line with the count', () => {
    const lines: [string, Record<string, unknown> | undefined][] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (m, f) => lines.push([m, f as Record<string, unknown>]) };
    let now = 0;
    const log = new FailureLog(logger, { now: () => now });
    const failure = { clientID: 'c', mutationID: 1, name: 'm', userID: 'u', error: { name: 'Error', message: 'no' } };
    for (let i = 0; i < LOG_LINES_PER_WINDOW + 30; i++) log.mutationFailed('r', failure);
    log.moreFailed('r', 5);
    expect(lines).toHaveLength(LOG_LINES_PER_WINDOW);
    expect(lines[0]).toEqual(['mutation failed; skipped and counted as processed', { roomID: 'r', ...failure }]);
    expect(JSON.stringify(lines[0])).not.toMatch(/stack/);
    now += LOG_WINDOW_MS;
    log.mutationFailed('r', failure);
    expect(lines.slice(LOG_LINES_PER_WINDOW)).toEqual([
      ['mutation failures not logged one by one', { count: 35, windowMs: LOG_WINDOW_MS }],
      ['mutation failed; skipped and counted as processed', { roomID: 'r', ...failure }],
    ]);
  });
});
