import type { Clock } from './clock';
import type { FailedMutation } from './engine/engine-types';
import type { Logger } from './logger';

/** At most this many skipped mutations are logged one by one per window; the rest are counted. */
export const FAILURE_LOGS_PER_WINDOW = 20;
export const FAILURE_LOG_WINDOW_MS = 60_000;

/**
 * Logs skipped mutations without letting a client flood the logs: one line
 * each (name and message, no stack) up to FAILURE_LOGS_PER_WINDOW per window,
 * then a single line with the count of those not logged.
 */
export class FailureLog {
  private windowStart: number;
  private logged = 0;
  private suppressed = 0;

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {
    this.windowStart = clock.now();
  }

  mutationFailed(roomID: string, f: FailedMutation): void {
    this.roll();
    if (this.logged >= FAILURE_LOGS_PER_WINDOW) {
      this.suppressed++;
      return;
    }
    this.logged++;
    this.logger.warn('mutation failed; skipped and counted as processed', { roomID, ...f });
  }

  /** Failures the room only counted. */
  moreFailed(_roomID: string, count: number): void {
    this.roll();
    this.suppressed += count;
  }

  private roll(): void {
    const now = this.clock.now();
    if (now - this.windowStart < FAILURE_LOG_WINDOW_MS) return;
    if (this.suppressed > 0) {
      this.logger.warn('mutation failures not logged one by one', { count: this.suppressed, windowMs: FAILURE_LOG_WINDOW_MS });
    }
    this.windowStart = now;
    this.logged = 0;
    this.suppressed = 0;
  }
}
