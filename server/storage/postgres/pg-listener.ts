import type { Notification } from 'pg';
import type { Timers } from '../../clock';
import type { Logger } from '../../logger';

/** The part of a pg Client the listener uses. */
export interface ListenConnection {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'notification', listener: (message: Notification) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
}

export interface PgListenerOptions {
  /** A new, unconnected connection (one per attempt). */
  readonly newConnection: () => ListenConnection;
  /** A plain identifier. */
  readonly channel: string;
  readonly onPayload: (payload: string) => void;
  /** After a reconnect and LISTEN: notifications sent meanwhile are gone, so look at everything. */
  readonly onReconnected: () => void;
  readonly timers: Timers;
  readonly logger: Logger;
}

/** First wait before reconnecting, then doubled per failed attempt up to the cap. */
export const LISTEN_RETRY_INITIAL_MS = 100;
export const LISTEN_RETRY_MAX_MS = 5000;

/** The wait before reconnect attempt `attempt` (1, 2, …). */
export function listenRetryDelayMs(attempt: number): number {
  return Math.min(LISTEN_RETRY_MAX_MS, LISTEN_RETRY_INITIAL_MS * 2 ** Math.max(0, attempt - 1));
}

/**
 * One connection that LISTENs on a channel. When it breaks it reconnects with
 * back-off (100 ms doubling to 5 s), LISTENs again and reports the reconnect,
 * so its owner can catch up on what was said while it was away.
 */
export class PgListener {
  private connection: ListenConnection | undefined;
  private stopped = false;
  private attempt = 0;
  private timer: unknown;

  constructor(private readonly options: PgListenerOptions) {}

  /** Connects and LISTENs; rejects when the first attempt fails. */
  async start(): Promise<void> {
    await this.open();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.options.timers.clearTimeout(this.timer);
    const c = this.connection;
    this.connection = undefined;
    await c?.end().catch(() => {});
  }

  private async open(): Promise<void> {
    const c = this.options.newConnection();
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (this.connection === c) this.connection = undefined;
      void c.end().catch(() => {});
      if (this.stopped) return;
      this.options.logger.warn('PostgreSQL listener connection lost; reconnecting', { error });
      this.scheduleReconnect();
    };
    c.on('error', onLost);
    c.on('end', () => onLost());
    c.on('notification', (m) => {
      if (m.channel === this.options.channel && m.payload !== undefined) this.options.onPayload(m.payload);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${this.options.channel}`);
    } catch (error) {
      lost = true;
      void c.end().catch(() => {});
      throw error;
    }
    if (this.stopped) {
      await c.end().catch(() => {});
      return;
    }
    this.connection = c;
  }

  private scheduleReconnect(): void {
    this.attempt++;
    this.timer = this.options.timers.setTimeout(() => void this.reconnect(), listenRetryDelayMs(this.attempt));
  }

  private async reconnect(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.open();
    } catch (error) {
      this.options.logger.debug('PostgreSQL listener could not reconnect yet', { error, attempt: this.attempt });
      if (!this.stopped) this.scheduleReconnect();
      return;
    }
    if (this.stopped) return;
    this.options.logger.info('PostgreSQL listener reconnected', { attempts: this.attempt });
    this.attempt = 0;
    this.options.onReconnected();
  }
}
