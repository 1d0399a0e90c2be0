import type { ReadonlyJSONValue } from '../../protocol/json';
import { NOT_AT_HAND, type BTreeWriter } from '../btree/types';
import type { ChangeMap } from './change-set';
import { indexKeysFor, type CompiledIndex, type IndexSkipHandler } from './index-definition';
import { checkKeyText, cloneFrozenJSON } from './json-value';
import type { MapReaders } from './map-access';
import { ReadTransactionImpl } from './read-transaction';
import type { KeyCompare } from './scan-options';
import type { TransactionReason, WriteTransaction } from './transaction-types';

const PUT: Promise<void> = Promise.resolve();
const nothing = (): void => {};

export class WriteTransactionImpl extends ReadTransactionImpl<BTreeWriter> implements WriteTransaction {
  /** Every primary key written, with its value before the transaction and now. */
  readonly changes: ChangeMap = new Map();
  /** Writes that took write's way and have not ended. */
  private waiting = 0;
  /** The last of them: each lands after the one before, so a key's writes land in call order even when a mutator does not await them. */
  private lastWrite: Promise<unknown> | undefined;

  constructor(
    clientID: string,
    reason: TransactionReason,
    readonly mutationID: number,
    maps: MapReaders<BTreeWriter>,
    compare: KeyCompare,
    private readonly indexes: readonly CompiledIndex[],
    private readonly onIndexSkip: IndexSkipHandler | undefined,
    /** When set, an entry that cannot be indexed is reported here and skipped instead of failing the write. */
    private readonly onIndexError?: (error: unknown, key: string) => void,
  ) {
    super(clientID, reason, maps, compare);
  }

  /** Not an async function: a put written at once answers a promise resolved already, made once. */
  put(key: string, value: ReadonlyJSONValue): Promise<void> {
    try {
      this.checkOpen();
      const frozen = cloneFrozenJSON(key, value);
      return this.putNow(key, frozen) ? PUT : this.write(key, frozen).then(nothing);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  async del(key: string): Promise<boolean> {
    this.checkOpen();
    checkKeyText(key);
    return this.write(key, undefined);
  }

  /**
   * A put, at once, when it needs no wait: the old value is at hand, no index
   * covers the key and no write that had to wait is still going on (while one
   * is, later writes take write's way too, as they all did before). False
   * when it did nothing. A mutator may put thousands of entries: this spares
   * each the promises of write, the tree's get and put (most of a put's cost
   * while code is cold).
   */
  putNow(key: string, value: ReadonlyJSONValue): boolean {
    if (this.waiting > 0) return false;
    for (let i = 0; i < this.indexes.length; i++) if (key.startsWith(this.indexes[i]!.definition.prefix)) return false;
    const old = this.maps.primary.getNow(key);
    if (old === NOT_AT_HAND) return false;
    this.maps.primary.putNow(key, value);
    this.noteChange(key, old, value);
    return true;
  }

  /** Puts (or with `undefined` deletes) an already frozen JSON value, after every write begun before it. */
  write(key: string, value: ReadonlyJSONValue | undefined): Promise<boolean> {
    return this.inTurn(() => this.land(key, value));
  }

  /** Runs `body` once every write begun before it has ended (each after the one before: call order). */
  private async inTurn<T>(body: () => Promise<T>): Promise<T> {
    this.waiting++;
    const before = this.lastWrite;
    const landing = before === undefined ? body() : before.then(() => (this.checkOpen(), body()));
    this.lastWrite = landing.then(nothing, nothing);
    try {
      return await landing;
    } finally {
      if (--this.waiting === 0) this.lastWrite = undefined;
    }
  }

  private async land(key: string, value: ReadonlyJSONValue | undefined): Promise<boolean> {
    const primary = this.maps.primary;
    const old = await primary.get(key);
    this.checkOpen();
    if (value === undefined && old === undefined) return false;
    if (this.indexes.length > 0) await this.updateIndexes(key, old, value);
    if (value === undefined) await primary.del(key);
    else await primary.put(key, value);
    this.noteChange(key, old, value);
    return old !== undefined;
  }

  private noteChange(key: string, old: ReadonlyJSONValue | undefined, value: ReadonlyJSONValue | undefined): void {
    const c = this.changes.get(key);
    if (c) c.newValue = value;
    else this.changes.set(key, { oldValue: old, newValue: value });
  }

  private async updateIndexes(
    key: string,
    old: ReadonlyJSONValue | undefined,
    value: ReadonlyJSONValue | undefined,
  ): Promise<void> {
    // Compute every new index key first, so a rejected one changes nothing.
    const plans: [CompiledIndex, string[], string[]][] = [];
    for (const ix of this.indexes) {
      if (!key.startsWith(ix.definition.prefix)) continue;
      const newKeys = value === undefined ? [] : this.keysFor(ix, key, value, this.onIndexSkip);
      const oldKeys = old === undefined ? [] : this.keysFor(ix, key, old, undefined);
      if (newKeys.length > 0 || oldKeys.length > 0) plans.push([ix, oldKeys, newKeys]);
    }
    for (const [ix, oldKeys, newKeys] of plans) {
      // Array pointers can yield the same key twice; the put is idempotent.
      const w = this.maps.index(ix.name);
      for (const k of oldKeys) if (!newKeys.includes(k)) await w.del(k);
      for (const k of newKeys) await w.put(k, value!);
    }
  }

  private keysFor(
    ix: CompiledIndex,
    key: string,
    value: ReadonlyJSONValue,
    onSkip: IndexSkipHandler | undefined,
  ): string[] {
    if (this.onIndexError === undefined) return indexKeysFor(ix, key, value, onSkip);
    try {
      return indexKeysFor(ix, key, value, onSkip);
    } catch (e) {
      this.onIndexError(e, key);
      return [];
    }
  }

  /** Removes every entry of the primary map and of every index map, in turn with the writes (after those begun before). */
  async clearAll(): Promise<void> {
    this.checkOpen();
    return this.inTurn(async () => {
      await this.maps.primary.clear();
      for (const ix of this.indexes) await this.maps.index(ix.name).clear();
    });
  }
}
