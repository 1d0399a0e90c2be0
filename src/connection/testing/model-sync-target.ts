import type { Mutation, PokeBody } from '../../protocol/generated/types';
import type { ReadonlyJSONValue } from '../../../protocol/json';
import type { SyncTarget } from '../sync-target';

export class ModelUnexpectedBaseCookieError extends Error {
  readonly kind = 'UnexpectedBaseCookie';
}

/**
 * A small honest model of the store for connection tests: a key/value map at
 * a server cookie, and this client's pending mutations, dropped when acknowledged.
 */
export class ModelSyncTarget implements SyncTarget {
  readonly clientID: string;
  cookie: number | null = null;
  readonly data = new Map<string, ReadonlyJSONValue>();
  readonly applied: PokeBody[] = [];
  disabled = false;
  #pending: Mutation[] = [];
  #lastMutationID = 0;
  #nextID = 1;
  #listeners = new Set<() => void>();
  #now: () => number;

  constructor(clientID: string, now: () => number = () => 0) {
    this.clientID = clientID;
    this.#now = now;
  }

  mutate(name: string, args: ReadonlyJSONValue = null): Mutation {
    const mutation: Mutation = { id: this.#nextID++, clientID: this.clientID, name, args, timestamp: this.#now() };
    this.#pending.push(mutation);
    for (const listener of [...this.#listeners]) listener();
    return mutation;
  }

  lastMutationID(): number {
    return this.#lastMutationID;
  }

  pendingMutations(): readonly Mutation[] {
    return this.#pending;
  }

  async applyPoke(body: PokeBody): Promise<void> {
    await Promise.resolve();
    if (body.baseCookie !== this.cookie) throw new ModelUnexpectedBaseCookieError(`baseCookie ${body.baseCookie} ≠ ${this.cookie}`);
    for (const op of body.patch) {
      if (op.op === 'clear') this.data.clear();
      else if (op.op === 'del') this.data.delete(op.key);
      else this.data.set(op.key, op.value);
    }
    this.cookie = body.cookie;
    const acked = body.lastMutationIDChanges[this.clientID];
    if (acked !== undefined && acked > this.#lastMutationID) {
      this.#lastMutationID = acked;
      this.#pending = this.#pending.filter((m) => m.id > acked);
    }
    this.applied.push(body);
  }

  onLocalMutation(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  disableClientGroup(): void {
    this.disabled = true;
  }
}
