import type { Clock } from './clock';
import type { FailedMutation } from './engine/engine-types';
import { LogBudget } from './log-budget';
import type { Logger } from './logger';

/**
 * Logs skipped mutations without letting a client flood the logs: one line
 * each (name and message, no stack) up to LOG_LINES_PER_WINDOW per window,
 * then a single line with the count of those not logged.
 */
export class FailureLog {
  private readonly budget: LogBudget;

  constructor(logger: Logger, clock: Clock) {
    this.budget = new LogBudget(logger, clock, 'warn', 'mutation failures not logged one by one');
  }

  mutationFailed(roomID: string, f: FailedMutation): void {
    this.budget.log('mutation failed; skipped and counted as processed', { roomID, ...f });
  }

  /** Failures the room only counted. */
  moreFailed(_roomID: string, count: number): void {
    this.budget.count(count);
  }
}
