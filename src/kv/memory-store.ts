/**
 * A KvStore in memory. Instances created with the same name in one JS realm
 * share their data and their lock, as two tabs share one IndexedDB database.
 */
import type { ReadonlyJSONValue } from '../../protocol/json';
import { StoreClosedError, TransactionClosedError, assertStoreName } from './errors';
import { flatString } from './flat-string';
import { RWLock, type Unlock } from './rw-lock';
import type { KvRead, KvStore, KvWrite } from './types';

interface SharedData {
  readonly map: Map<string, ReadonlyJSONValue>;
  readonly lock: RWLock;
  /** Set by drop(): instances still holding it are closed, as a deleted database closes its connections. */
  dropped: boolean;
}

const registry = new Map<string, SharedData>();

function shared(name: string): SharedData {
  let data = registry.get(name);
  if (data === undefined) {
    data = { map: new Map(), lock: new RWLock(), dropped: false };
    registry.set(name, data);
  }
  return data;
}

export class MemoryStore implements KvStore {
  readonly name: string;
  readonly #data: SharedData;
  #closed = false;

  constructor(name: string) {
    assertStoreName(name);
    this.name = name;
    this.#data = shared(name);
  }

  /** Forgets the data of every store of this name (for tests). */
  static drop(name: string): void {
    const data = registry.get(name);
    if (data !== undefined) data.dropped = true;
    registry.delete(name);
  }

  /** Names of the stores that hold data in this realm. */
  static names(): string[] {
    return [...registry.keys()];
  }

  get closed(): boolean {
    return this.#closed || this.#data.dropped;
  }

  async read(): Promise<KvRead> {
    this.#assertOpen();
    const unlock = await this.#data.lock.read();
    return new MemoryRead(this.#data.map, unlock);
  }

  async write(): Promise<KvWrite> {
    this.#assertOpen();
    const unlock = await this.#data.lock.write();
    return new MemoryWrite(this.#data.map, unlock);
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreClosedError();
    if (this.#data.dropped) throw new StoreClosedError('Store is closed: it was deleted');
  }
}

class MemoryRead implements KvRead {
  protected readonly map: Map<string, ReadonlyJSONValue>;
  #unlock: Unlock | undefined;

  constructor(map: Map<string, ReadonlyJSONValue>, unlock: Unlock) {
    this.map = map;
    this.#unlock = unlock;
  }

  async has(key: string): Promise<boolean> {
    this.assertOpen();
    return this.map.has(key);
  }

  async get(key: string): Promise<ReadonlyJSONValue | undefined> {
    this.assertOpen();
    return this.map.get(key);
  }

  release(): void {
    const unlock = this.#unlock;
    this.#unlock = undefined;
    unlock?.();
  }

  protected assertOpen(): void {
    if (this.#unlock === undefined) throw new TransactionClosedError();
  }
}

const ABSENT = Symbol('absent');


/**
 * Writes go to the shared map at once (the write lock keeps every other
 * transaction out until this one ends), with what they replaced noted so that
 * a write released without commit puts it back. No second map of pending
 * writes: a store of 100,000 commits (300,000 keys) held one beside the data.
 */
class MemoryWrite extends MemoryRead implements KvWrite {
  /** Keys written, oldest first, and what each held before (ABSENT: nothing). */
  #undoKeys: string[] = [];
  #undoValues: (ReadonlyJSONValue | typeof ABSENT)[] = [];

  async put(key: string, value: ReadonlyJSONValue): Promise<void> {
    this.assertOpen();
    const k = flatString(key);
    this.#noteOld(k);
    this.map.set(k, value);
  }

  async del(key: string): Promise<void> {
    this.assertOpen();
    const k = flatString(key);
    if (!this.map.has(k)) return;
    this.#noteOld(k);
    this.map.delete(k);
  }

  async commit(): Promise<void> {
    this.assertOpen();
    this.#undoKeys = [];
    this.#undoValues = [];
    this.release();
  }

  /** Ends the transaction; without a commit first, its writes are undone. */
  override release(): void {
    const keys = this.#undoKeys;
    const values = this.#undoValues;
    this.#undoKeys = [];
    this.#undoValues = [];
    for (let i = keys.length - 1; i >= 0; i--) {
      const old = values[i]!;
      if (old === ABSENT) this.map.delete(keys[i]!);
      else this.map.set(keys[i]!, old);
    }
    super.release();
  }

  #noteOld(key: string): void {
    this.#undoKeys.push(key);
    this.#undoValues.push(this.map.has(key) ? this.map.get(key)! : ABSENT);
  }
}
