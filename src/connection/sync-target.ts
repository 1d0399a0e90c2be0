import type { Mutation, PokeBody } from '../protocol/generated/types';

/**
 * What the connection needs from the local store. The store facade adapts
 * itself to this; tests use a small model of it.
 */
export interface SyncTarget {
  /** The cookie of the last server state applied locally; null before any. */
  readonly cookie: number | null;
  /** This client's last mutation id the server has acknowledged (the connect `lmid`). */
  lastMutationID(): number;
  /** Mutations not yet acknowledged by the server, in id order. Read at once: the list may be the store's own, changed by the next mutation or poke. */
  pendingMutations(): readonly Mutation[];
  /** How many there are, without copying them. @default pendingMutations().length */
  readonly pendingMutationCount?: number;
  /**
   * Applies a poke. Throws an error whose `kind` is 'UnexpectedBaseCookie'
   * when the poke's baseCookie is not the local cookie.
   */
  applyPoke(body: PokeBody): Promise<void>;
  /** Calls `listener` after each local mutation; returns the unsubscribe function. */
  onLocalMutation(listener: () => void): () => void;
  /** Marks the client group as disabled: the server does not know it. */
  disableClientGroup?(): Promise<void> | void;
}
