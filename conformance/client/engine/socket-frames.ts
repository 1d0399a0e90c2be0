import { decodeUpstream, InvalidMessageError, PUSH_VERSION } from '../../../src/protocol';
import type { Upstream } from '../../../src/protocol';
import type { ReadonlyJSONValue } from '../../../protocol/json';
import { CheckFailure } from '../../shared/check-failure';
import type { ClientIDs } from './placeholders';
import type { ServerSocket } from './transport';

export interface ReceivedFrame {
  readonly message: Upstream;
  readonly text: string;
  readonly at: number;
}

export interface FrameRules {
  readonly ids: ClientIDs;
  readonly schemaVersion: string;
}

/**
 * The frames of one socket as the scripted server reads them: every frame is
 * validated with decodeUpstream and the push invariants (this client's ids,
 * ids increasing on the socket, so none sent twice) are checked as it arrives.
 * Expectations consume frames from `unread`.
 */
export class SocketFrames {
  /** Every valid frame, in order. */
  readonly received: ReceivedFrame[] = [];
  /** Frames no expectation has consumed yet, in order. */
  readonly unread: ReceivedFrame[] = [];
  /** How many of `received` the engine has already logged (and answered, for pings). */
  handled = 0;
  #scanned = 0;
  /** The last mutation id pushed on this socket, per client group. */
  readonly #lastPushedID = new Map<string, number>();

  constructor(
    readonly socket: ServerSocket,
    private readonly rules: FrameRules,
  ) {}

  /** Validates the frames that arrived since the last scan; returns them. Throws CheckFailure on a violation. */
  scan(): ReceivedFrame[] {
    const fresh: ReceivedFrame[] = [];
    for (; this.#scanned < this.socket.frames.length; this.#scanned++) {
      const { text, at } = this.socket.frames[this.#scanned]!;
      let message: Upstream;
      try {
        message = decodeUpstream(text);
      } catch (error) {
        if (error instanceof InvalidMessageError) {
          throw new CheckFailure(`the client sent a frame that does not match the protocol: ${error.message}`, 'a valid upstream message', text);
        }
        throw error;
      }
      if (message[0] === 'push') this.#checkPush(message[1], text);
      const frame = { message, text, at };
      this.received.push(frame);
      this.unread.push(frame);
      fresh.push(frame);
    }
    return fresh;
  }

  /** Marks the first `count` unread frames as consumed by an expectation. */
  consume(count: number): void {
    this.unread.splice(0, count);
  }

  /** Takes one frame out of the unread ones (a ping the server answered on its own). */
  discard(frame: ReceivedFrame): void {
    const index = this.unread.indexOf(frame);
    if (index >= 0) this.unread.splice(index, 1);
  }

  #checkPush(body: Extract<Upstream, readonly ['push', unknown]>[1], text: string): void {
    const { ids, schemaVersion } = this.rules;
    const recovering = ids.orphanGroupID !== undefined && body.clientGroupID === ids.orphanGroupID;
    if (body.clientGroupID !== ids.clientGroupID && !recovering) throw new CheckFailure('a push names another client group', ids.clientGroupID, text);
    if (body.pushVersion !== PUSH_VERSION) throw new CheckFailure('a push has the wrong pushVersion', String(PUSH_VERSION), text);
    if (body.schemaVersion !== schemaVersion) throw new CheckFailure('a push has the wrong schemaVersion', schemaVersion, text);
    const clientID = recovering ? ids.orphanClientID : ids.clientID;
    for (const mutation of body.mutations) {
      if (mutation.clientID !== clientID) throw new CheckFailure(`a push of client group ${body.clientGroupID} carries another client's mutation`, String(clientID), text);
      const last = this.#lastPushedID.get(body.clientGroupID) ?? 0;
      if (mutation.id <= last) {
        throw new CheckFailure(`mutation ${mutation.id} was sent after mutation ${last} on the same socket (sent twice or out of order)`, `ids above ${last}`, text);
      }
      this.#lastPushedID.set(body.clientGroupID, mutation.id);
    }
  }
}

/**
 * Mutations of the next push frames of `clientGroupID` (pings skipped) until
 * `count` are in; stops at any other frame.
 */
export function collectPushes(unread: readonly ReceivedFrame[], count: number, clientGroupID: string) {
  const frames: ReceivedFrame[] = [];
  const mutations: { id: number; name: string; args: ReadonlyJSONValue }[] = [];
  for (const frame of unread) {
    if (mutations.length >= count) break;
    const [name, body] = frame.message;
    if (name === 'ping') {
      frames.push(frame);
      continue;
    }
    if (name !== 'push' || body.clientGroupID !== clientGroupID) return { frames, mutations, unexpected: frame, done: true };
    frames.push(frame);
    mutations.push(...body.mutations.map((m) => ({ id: m.id, name: m.name, args: m.args })));
  }
  return { frames, mutations, unexpected: undefined, done: mutations.length >= count && count > 0 };
}
