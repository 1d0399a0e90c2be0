import type { Store } from '../db/store';
import type { Mutation, PokeBody } from '../protocol/generated/types';
import type { SyncTarget } from './sync-target';

/** Fans the store's single onLocalMutation callback out to listeners. */
export class LocalMutationSignal {
  readonly #listeners = new Set<() => void>();

  readonly fire = (): void => {
    for (const listener of [...this.#listeners]) listener();
  };

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** The local store seen through the narrow interface the connection needs. */
export class StoreSyncTarget implements SyncTarget {
  readonly #store: Store;
  readonly #localMutations: LocalMutationSignal;
  readonly #onApplied: () => void;
  readonly disableClientGroup: (() => Promise<void>) | undefined;

  constructor(
    store: Store,
    localMutations: LocalMutationSignal,
    onApplied: () => void = () => {},
    disableClientGroup?: () => Promise<void>,
  ) {
    this.#store = store;
    this.#localMutations = localMutations;
    this.#onApplied = onApplied;
    this.disableClientGroup = disableClientGroup;
  }

  get cookie(): number | null {
    const cookie = this.#store.cookie;
    return typeof cookie === 'number' ? cookie : null;
  }

  lastMutationID(): number {
    return this.#store.lastMutationID;
  }

  pendingMutations(): readonly Mutation[] {
    // No copy: the pusher reads the list at once and keeps nothing of it.
    return this.#store.pendingMutationList();
  }

  get pendingMutationCount(): number {
    return this.#store.pendingMutationCount;
  }

  async applyPoke(body: PokeBody): Promise<void> {
    await this.#store.applyServerUpdate({
      baseCookie: body.baseCookie,
      cookie: body.cookie,
      lastMutationIDChanges: body.lastMutationIDChanges,
      patch: body.patch,
    });
    this.#onApplied();
  }

  onLocalMutation(listener: () => void): () => void {
    return this.#localMutations.subscribe(listener);
  }
}
