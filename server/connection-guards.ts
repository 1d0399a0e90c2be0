import type { WebSocket } from 'ws';
import type { ServerContext } from './context';
import { TokenBucket } from './token-bucket';

/**
 * Per-connection rate limits with back-pressure: a client over its
 * mutations/s or bytes/s stops being read (its socket is paused) until it is
 * back within its limit, so it slows down instead of being dropped.
 */
export class RateLimiter {
  private readonly mutations: TokenBucket;
  private readonly bytes: TokenBucket;
  private resumeAt = 0;

  constructor(
    private readonly ctx: ServerContext,
    private readonly ws: WebSocket,
  ) {
    const l = ctx.limits;
    this.mutations = new TokenBucket(l.mutationsPerSecond, l.mutationBurst, ctx.clock);
    this.bytes = new TokenBucket(l.bytesPerSecond, l.byteBurst, ctx.clock);
  }

  /** Spends one frame's budget; pauses the socket when the client is over a limit. */
  spend(frameBytes: number, mutations: number): void {
    const wait = Math.max(this.bytes.take(frameBytes), mutations > 0 ? this.mutations.take(mutations) : 0);
    if (wait === 0) return;
    const until = this.ctx.clock.now() + wait;
    if (this.ws.isPaused && until <= this.resumeAt) return;
    this.resumeAt = until;
    this.ctx.counters.throttled++;
    this.ws.pause();
    this.ctx.timers.setTimeout(() => {
      if (this.ctx.clock.now() >= this.resumeAt) this.ws.resume();
    }, wait);
  }
}

/**
 * Closes connections that went silent: every half idle timeout, a socket
 * that sent nothing (no frame, no pong) since the last look gets a WebSocket
 * ping; one still silent at the next look is cut off. Clients ping every 5 s
 * when quiet, and browsers answer WebSocket pings on their own.
 *
 * Also those that stopped reading: a socket with bytes still to send that
 * took none of them for a whole idle timeout (two looks) is cut off, however
 * much it sends (a client that writes but never reads would otherwise keep
 * what was sent to it, a whole catch-up, in the server's memory).
 */
export class IdleWatch {
  private active = true;
  private pinged = false;
  private handle: unknown;
  private stopped = false;
  /** Bytes queued for the socket at the last look, and looks in a row it took none of them. */
  private lastBuffered = 0;
  private stalledLooks = 0;

  constructor(
    private readonly ctx: ServerContext,
    private readonly ws: WebSocket,
  ) {
    ws.on('pong', () => this.touch());
    this.arm();
  }

  touch(): void {
    this.active = true;
  }

  stop(): void {
    this.stopped = true;
    this.ctx.timers.clearTimeout(this.handle);
  }

  private arm(): void {
    if (this.stopped) return;
    this.handle = this.ctx.timers.setTimeout(() => this.look(), this.ctx.limits.idleTimeoutMs / 2);
  }

  private look(): void {
    if (this.stopped || this.ws.readyState !== this.ws.OPEN) return;
    const buffered = this.ws.bufferedAmount;
    this.stalledLooks = buffered > 0 && buffered >= this.lastBuffered ? this.stalledLooks + 1 : 0;
    this.lastBuffered = buffered;
    if (this.stalledLooks >= 2) {
      this.ctx.counters.idleClosed++;
      this.ctx.logger.info('closing a connection that stopped reading', { bufferedBytes: buffered, idleTimeoutMs: this.ctx.limits.idleTimeoutMs });
      this.ws.terminate();
      return;
    }
    if (this.active) {
      this.active = false;
      this.pinged = false;
    } else if (!this.pinged) {
      this.pinged = true;
      this.ws.ping();
    } else {
      this.ctx.counters.idleClosed++;
      this.ctx.logger.info('closing an idle connection', { idleTimeoutMs: this.ctx.limits.idleTimeoutMs });
      this.ws.terminate();
      return;
    }
    this.arm();
  }
}
