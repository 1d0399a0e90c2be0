import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { encodeDownstream, type ConnectParams, type Downstream, type ErrorKind, type PullRequestBody } from '../src/protocol';
import { ANONYMOUS_USER_ID, type AuthData } from './auth/auth';
import type { Logger } from './logger';
import type { TextFrame } from './ws-frame';

/** WebSocket close codes the server uses. */
export const CLOSE_NORMAL = 1000;
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_POLICY = 1008;
export const CLOSE_INTERNAL_ERROR = 1011;

/** A queued answer to a connection's pull, and the newest pull it answers. */
export interface PullSlot {
  pull: PullRequestBody;
}

/** One client's socket, once its connect request was accepted. */
export class ClientConnection {
  /** The cookie the client was last brought to (its baseCookie for the next poke). */
  cookie: number | null;
  private closed = false;
  /** The pull the last queued answer will send, while a newer pull may still take its place (see queuePull). */
  private openPull: PullSlot | undefined;
  /**
   * Whose budget of new clients this connection's new client ids take (see
   * NewClientBudget): its user's, but an anonymous client's own address's,
   * so that one anonymous visitor cannot use up every other's.
   */
  readonly newClientBudgetKey: string;
  /** The socket under `socket`, for frames written as they are: only while ws transforms nothing (no extension, e.g. compression). */
  private readonly framesDirect: Duplex | undefined;

  constructor(
    private readonly socket: WebSocket,
    readonly params: ConnectParams,
    readonly auth: AuthData,
    private readonly maxSendBufferBytes: number,
    private readonly logger: Logger,
    address: string,
    rawSocket?: Duplex,
  ) {
    this.cookie = params.baseCookie;
    this.framesDirect = socket.extensions === '' ? rawSocket : undefined;
    this.newClientBudgetKey = auth.userID === ANONYMOUS_USER_ID ? `${ANONYMOUS_USER_ID}@${address}` : auth.userID;
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
   * A pull to answer: a new slot, for which the caller queues an answer, or
   * undefined when it took the place of a pull still waiting (a client that
   * asks again before the answer came gets the newest answer only, so a
   * flood of pulls holds one task in the room's queue, not one each).
   */
  queuePull(pull: PullRequestBody): PullSlot | undefined {
    if (this.openPull !== undefined) {
      this.openPull.pull = pull;
      return undefined;
    }
    return (this.openPull = { pull });
  }

  /**
   * A push was queued after the waiting pull: a later pull must be answered
   * after that push (its answer may acknowledge it), so it gets a slot of its
   * own instead of taking the waiting one's place.
   */
  closePull(): void {
    this.openPull = undefined;
  }

  /** The pull `slot` answers now (no later pull takes its place any more). */
  takePull(slot: PullSlot): PullRequestBody {
    if (this.openPull === slot) this.openPull = undefined;
    return slot.pull;
  }

  send(message: Downstream): void {
    this.sendText(encodeDownstream(message));
  }

  /**
   * Sends one text message already encoded; a framed one is written to the
   * socket as it is (ws's sender writes at once too, with no extension, so
   * frames keep their order), the same bytes for every receiver. A
   * client that has not read what was sent before (more than
   * maxSendBufferBytes still queued) is dropped instead of growing memory;
   * one large frame alone (a big catch-up) is always let through.
   */
  sendText(frame: string | TextFrame): void {
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
    if (typeof frame === 'string') this.socket.send(frame);
    else if (this.framesDirect !== undefined) this.framesDirect.write(frame.bytes);
    else this.socket.send(frame.payload, { binary: false });
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
