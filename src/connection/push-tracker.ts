import type { Mutation } from '../protocol/generated/types';

/** The last mutation id per client that a frame carries. */
type FrameIDs = ReadonlyMap<string, number>;

/**
 * What the current socket has carried: per client, the last mutation id sent
 * and the last one the server acknowledged (from pokes as they arrive, before
 * they are applied), and the push frames not yet acknowledged. A new socket
 * starts again from the first pending mutation.
 */
export class PushTracker {
  readonly #lastSent = new Map<string, number>();
  readonly #acked = new Map<string, number>();
  #inFlight: FrameIDs[] = [];

  reset(): void {
    this.#lastSent.clear();
    this.#acked.clear();
    this.#inFlight = [];
  }

  /** Push frames sent on this socket that no poke has acknowledged yet. */
  get framesInFlight(): number {
    return this.#inFlight.length;
  }

  /**
   * Whether a mutation is neither sent nor known to be acknowledged, as of
   * now (later markSent calls are not seen): for one pass over a long
   * pending list, one map lookup per change of client.
   */
  unsentTest(): (m: Mutation) => boolean {
    let clientID: string | undefined;
    let threshold = 0;
    return (m) => {
      if (m.clientID !== clientID) {
        clientID = m.clientID;
        threshold = Math.max(this.#lastSent.get(clientID) ?? 0, this.#acked.get(clientID) ?? 0);
      }
      return m.id > threshold;
    };
  }

  /** One frame carrying `mutations` went out. */
  markSent(mutations: readonly Mutation[]): void {
    const ids = new Map<string, number>();
    for (const m of mutations) {
      if (m.id > (this.#lastSent.get(m.clientID) ?? 0)) this.#lastSent.set(m.clientID, m.id);
      if (m.id > (ids.get(m.clientID) ?? 0)) ids.set(m.clientID, m.id);
    }
    if (!this.#isAcknowledged(ids)) this.#inFlight.push(ids);
  }

  /** A poke arrived with these last mutation ids. Returns whether it acknowledged a frame in flight. */
  acknowledge(changes: Readonly<Record<string, number>>): boolean {
    for (const [clientID, id] of Object.entries(changes)) {
      if (id > (this.#acked.get(clientID) ?? 0)) this.#acked.set(clientID, id);
    }
    const before = this.#inFlight.length;
    this.#inFlight = this.#inFlight.filter((frame) => !this.#isAcknowledged(frame));
    return this.#inFlight.length < before;
  }

  /** Counts every frame in flight as acknowledged (the server did not say, and waiting longer would stall). */
  forgetInFlight(): void {
    this.#inFlight = [];
  }

  #isAcknowledged(frame: FrameIDs): boolean {
    for (const [clientID, id] of frame) if (id > (this.#acked.get(clientID) ?? 0)) return false;
    return true;
  }
}
