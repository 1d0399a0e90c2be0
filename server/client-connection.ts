import type { WebSocket } from 'ws';
import { encodeDownstream, type ConnectParams, type Downstream, type ErrorKind, type PullRequestBody } from '../src/protocol';
import type { AuthData } from './auth/auth';
import type { Logger } from './logger';

/** WebSocket close codes the server uses. */
export const CLOSE_NORMAL = 1000;
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_POLICY = 1008;
export const CLOSE_INTERNAL_ERROR = 1011;

/** One client's socket, once its connect request was accepted. */
export class ClientConnection {
  /** The cookie the client was last brought to (its baseCookie for the next poke). */
  cookie: number | null;
  private closed = false;
  /** The newest pull request not answered yet; at most one waits in the room's queue. */
  private pendingPull: PullRequestBody | undefined;

  constructor(
    private readonly socket: WebSocket,
    readonly params: ConnectParams,
    readonly auth: AuthData,
    private readonly maxSendBufferBytes: number,
    private readonly logger: Logger,
  ) {
    this.cookie = params.baseCookie;
  }

  get userID(): string {
    return this.auth.userID;
  }

  get clientID(): string {
    return this.params.clientID;
  }

  get clientGroupID(): string {
    return this.params.clientGroupID;
  }

  get roomID(): string {
    return this.params.roomID;
  }

  get isClosed(): boolean {
    return this.closed || this.socket.readyState !== this.socket.OPEN;
  }

  /**
   * Keeps `pull` to answer; true when none was waiting (the caller queues the
   * answer), false when it replaced one (a client that asks again before the
   * answer came gets the newest answer only, so a flood of pulls holds one
   * task in the room's queue, not one each).
   */
  queuePull(pull: PullRequestBody): boolean {
    const waiting = this.pendingPull !== undefined;
    this.pendingPull = pull;
    return !waiting;
  }

  /** The pull to answer now (and none waits any more). */
  takePull(): PullRequestBody | undefined {
    const pull = this.pendingPull;
    this.pendingPull = undefined;
    return pull;
  }

  send(message: Downstream): void {
    this.sendText(encodeDownstream(message));
  }

  /**
   * Sends one text frame already encoded (a shared buffer is sent as is). A
   * client that has not read what was sent before (more than
   * maxSendBufferBytes still queued) is dropped instead of growing memory;
   * one large frame alone (a big catch-up) is always let through.
   */
  sendText(frame: string | Buffer): void {
    if (this.isClosed) return;
    if (this.socket.bufferedAmount > this.maxSendBufferBytes) {
      this.logger.warn('client does not read; dropping its connection', {
        roomID: this.roomID,
        clientID: this.clientID,
        bufferedBytes: this.socket.bufferedAmount,
      });
      this.closed = true;
      this.socket.terminate();
      return;
    }
    this.socket.send(frame, { binary: false });
  }

  /** Sends `["error", kind, message]` and closes. */
  fail(kind: ErrorKind, message: string): void {
    this.send(['error', kind, message]);
    this.close(CLOSE_POLICY, kind);
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close(code, reason);
  }
}
