import type { Mutation } from '../protocol/generated/types';

/**
 * Remembers, per client, the last mutation id sent on the current socket, so
 * each push resumes after it. A new socket starts again from the first pending.
 */
export class PushTracker {
  readonly #lastSent = new Map<string, number>();

  reset(): void {
    this.#lastSent.clear();
  }

  /** The pending mutations not yet sent on this socket, in the order given. */
  unsent(pending: readonly Mutation[]): Mutation[] {
    return pending.filter((m) => m.id > (this.#lastSent.get(m.clientID) ?? 0));
  }

  markSent(mutations: readonly Mutation[]): void {
    for (const m of mutations) {
      if (m.id > (this.#lastSent.get(m.clientID) ?? 0)) this.#lastSent.set(m.clientID, m.id);
    }
  }
}
