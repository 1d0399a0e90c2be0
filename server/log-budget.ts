import type { Clock } from './clock';
import type { Logger } from './logger';

/** At most this many lines of one kind are logged one by one per window; the rest are counted. */
export const LOG_LINES_PER_WINDOW = 20;
export const LOG_WINDOW_MS = 60_000;

/**
 * Lines of one kind that clients can cause at will (a failing mutation, a
 * refused connect) logged without letting them flood the logs: one line each
 * up to LOG_LINES_PER_WINDOW per window, then, once the window is over, a
 * single line with the count of those not logged (`summary`).
 */
export class LogBudget {
  private windowStart: number;
  private logged = 0;
  private suppressed = 0;

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
    private readonly level: 'info' | 'warn',
    private readonly summary: string,
  ) {
    this.windowStart = clock.now();
  }

  log(message: string, fields: Record<string, unknown>): void {
    this.roll();
    if (this.logged >= LOG_LINES_PER_WINDOW) {
      this.suppressed++;
      return;
    }
    this.logged++;
    this.logger[this.level](message, fields);
  }

  /** Lines counted without being logged (as if `count` more were logged over the budget). */
  count(count: number): void {
    this.roll();
    this.suppressed += count;
  }

  private roll(): void {
    const now = this.clock.now();
    if (now - this.windowStart < LOG_WINDOW_MS) return;
    if (this.suppressed > 0) this.logger[this.level](this.summary, { count: this.suppressed, windowMs: LOG_WINDOW_MS });
    this.windowStart = now;
    this.logged = 0;
    this.suppressed = 0;
  }
}
