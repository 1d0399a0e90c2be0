import type { PullResponseBody } from '../protocol/generated/types';
import { RECOVERY_PULL_TIMEOUT_MS } from '../../protocol/constants';
import type { TimerHandle, Timers } from './environment';
import { PullError, type ConnectionError } from './errors';

interface Pending {
  readonly socketID: number;
  readonly clientGroupID: string;
  readonly resolve: (body: PullResponseBody) => void;
  readonly reject: (error: PullError) => void;
  readonly timer: TimerHandle;
}

/** Outstanding mutation-recovery pulls, matched to their answers by requestID. */
export class PullRequests {
  readonly #timers: Timers;
  readonly #onTimeout: (socketID: number) => void;
  readonly #pending = new Map<string, Pending>();

  constructor(timers: Timers, onTimeout: (socketID: number) => void) {
    this.#timers = timers;
    this.#onTimeout = onTimeout;
  }

  start(requestID: string, socketID: number, clientGroupID: string): Promise<PullResponseBody> {
    return new Promise((resolve, reject) => {
      const timer = this.#timers.setTimeout(() => {
        if (!this.#pending.delete(requestID)) return;
        reject(new PullError('PullTimeout'));
        this.#onTimeout(socketID);
      }, RECOVERY_PULL_TIMEOUT_MS);
      this.#pending.set(requestID, { socketID, clientGroupID, resolve, reject, timer });
    });
  }

  /** Settles the matching request; false when none waits for this requestID. */
  answer(body: PullResponseBody): boolean {
    const pending = this.#take(body.requestID);
    pending?.resolve(body);
    return pending !== undefined;
  }

  fail(requestID: string, error: PullError): void {
    this.#take(requestID)?.reject(error);
  }

  failSocket(socketID: number, cause: ConnectionError | Error & { kind: ConnectionError['kind'] }): void {
    for (const [requestID, pending] of [...this.#pending]) {
      if (pending.socketID === socketID) this.fail(requestID, new PullError(cause.kind, { cause }));
    }
  }

  /** The client groups of the pulls waiting on a socket. */
  groupsOn(socketID: number): string[] {
    return [...new Set([...this.#pending.values()].filter((p) => p.socketID === socketID).map((p) => p.clientGroupID))];
  }

  /** Fails every pull waiting for `clientGroupID`. */
  failGroup(clientGroupID: string, error: PullError): void {
    for (const [requestID, pending] of [...this.#pending]) {
      if (pending.clientGroupID === clientGroupID) this.fail(requestID, error);
    }
  }

  failAll(cause: ConnectionError): void {
    for (const requestID of [...this.#pending.keys()]) this.fail(requestID, new PullError(cause.kind, { cause }));
  }

  #take(requestID: string): Pending | undefined {
    const pending = this.#pending.get(requestID);
    if (pending === undefined) return undefined;
    this.#pending.delete(requestID);
    this.#timers.clearTimeout(pending.timer);
    return pending;
  }
}
