import type { WebSocket } from 'ws';
import { encodeDownstream, type ConnectParams, type Downstream, type ErrorKind } from '../src/protocol';
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

  constructor(
    private readonly socket: WebSocket,
    readonly params: ConnectParams,
    readonly userID: string,
    private readonly maxSendBufferBytes: number,
    private readonly logger: Logger,
  ) {
    this.cookie = params.baseCookie;
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

  send(message: Downstream): void {
    if (this.isClosed) return;
    this.socket.send(encodeDownstream(message));
    if (this.socket.bufferedAmount > this.maxSendBufferBytes) {
      this.logger.warn('client does not read; dropping its connection', {
        roomID: this.roomID,
        clientID: this.clientID,
        bufferedBytes: this.socket.bufferedAmount,
      });
      this.closed = true;
      this.socket.terminate();
    }
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
