import type { Socket } from 'node:net';
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
 * Also those that stopped reading: a socket with bytes still to send whose
 * kernel took none of them for a whole idle timeout (three looks in a row
 * that see the same progress) is cut off, however much it sends (a client
 * that writes but never reads would otherwise keep what was sent to it, a
 * whole catch-up, in the server's memory). A slow reader makes progress,
 * even through one large frame, and is left alone.
 */
export class IdleWatch {
  private active = true;
  private pinged = false;
  private handle: unknown;
  private stopped = false;
  /** How far the socket's writes had got at the last look (undefined before it), and looks in a row that saw no further. */
  private lastProgress: string | undefined;
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
    const progress = writeProgress(this.ws);
    this.stalledLooks = buffered > 0 && progress === this.lastProgress ? this.stalledLooks + 1 : 0;
    this.lastProgress = progress;
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

/**
 * How far a socket's writes have got: bytes whose writes completed, and what
 * is left of the write under way (the kernel takes a large frame a part at a
 * time). Read from Node's socket (ws keeps it as `_socket`); where those are
 * missing, the bytes still queued.
 */
function writeProgress(ws: WebSocket): string {
  const socket = (ws as unknown as { _socket?: Socket & { _handle?: { writeQueueSize?: number } } })._socket;
  const inFlight = socket?._handle?.writeQueueSize;
  if (socket === undefined || inFlight === undefined) return `queued ${ws.bufferedAmount}`;
  return `${socket.bytesWritten - socket.writableLength} ${inFlight}`;
}
