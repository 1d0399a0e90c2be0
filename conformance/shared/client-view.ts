import type { PokeBody } from '../../src/protocol';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { RESERVED_KEY_PREFIX } from '../../protocol/presence';

export type KeyValues = Readonly<Record<string, ReadonlyJSONValue>>;

/**
 * What a client knows, built only from the pokes it received: the cookie, the
 * data, and the last mutation ids announced to it. A poke whose baseCookie is
 * not the current cookie breaks the chain; it is recorded and not applied,
 * as a real client would drop it.
 */
export class ClientView {
  cookie: number | null;
  private readonly data = new Map<string, ReadonlyJSONValue>();
  /** clientID → the highest last mutation id announced to this client. */
  readonly lastMutationIDs = new Map<string, number>();
  /** Every lastMutationIDChanges received, in order. */
  readonly lastMutationIDChanges: Array<Readonly<Record<string, number>>> = [];
  readonly chainBreaks: string[] = [];
  pokeCount = 0;

  constructor(cookie: number | null = null) {
    this.cookie = cookie;
  }

  applyPoke(poke: PokeBody): void {
    this.pokeCount++;
    if (poke.baseCookie !== this.cookie) {
      this.chainBreaks.push(
        `poke #${this.pokeCount} has baseCookie ${JSON.stringify(poke.baseCookie)} but the client's cookie was ${JSON.stringify(this.cookie)} (poke cookie ${poke.cookie})`,
      );
      return;
    }
    for (const op of poke.patch) {
      if (op.op === 'put') this.data.set(op.key, op.value);
      else if (op.op === 'del') this.data.delete(op.key);
      else this.data.clear();
    }
    this.cookie = poke.cookie;
    this.lastMutationIDChanges.push(poke.lastMutationIDChanges);
    for (const [clientID, id] of Object.entries(poke.lastMutationIDChanges)) {
      this.lastMutationIDs.set(clientID, Math.max(id, this.lastMutationIDs.get(clientID) ?? 0));
    }
  }

  get(key: string): ReadonlyJSONValue | undefined {
    return this.data.get(key);
  }

  /** The data as a plain object with keys sorted, for comparison and display. */
  /** The data, without the keys a server maintains under the reserved prefix (presence): they come and go with connections. */
  snapshot(): KeyValues {
    const out: Record<string, ReadonlyJSONValue> = {};
    for (const key of [...this.data.keys()].sort()) if (!key.startsWith(RESERVED_KEY_PREFIX)) out[key] = this.data.get(key)!;
    return out;
  }

  lastMutationID(clientID: string): number {
    return this.lastMutationIDs.get(clientID) ?? 0;
  }
}
