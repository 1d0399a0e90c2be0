/**
 * Stores in memory: a KvStore whose instances created with the same name in
 * one JS realm share their data and their lock, as two tabs share one
 * IndexedDB database, and the provider of such stores.
 *
 * The browser's start-up code needs them only where IndexedDB is missing or
 * refuses to open, or for `kvStore: 'mem'` (all opened asynchronously): it
 * loads this module with import() (memory-kit.ts's loadMemoryKv). So that a
 * bundler keeps it in a chunk of its own, it imports no start-up module: the
 * errors, the lock and flatString are handed to it (MemoryKit) before any of
 * it runs. Code that imports the stores directly takes them from
 * memory-store.ts and memory-provider.ts.
 */
import type { ReadonlyJSONValue } from '../../protocol/json';
import type { MemoryKit } from './memory-kit';
import type { KvProvider } from './provider';
import type { Unlock } from './rw-lock';
import type { KvRead, KvStore, KvWrite } from './types';

/** What this module uses of the start-up code, handed over by memoryKv (the same values for every caller). */
let kit!: MemoryKit;

/** The memory store and provider, with what they use of the start-up code. */
export function memoryKv(handed: MemoryKit): { readonly MemoryStore: typeof MemoryStore; readonly MemoryKvProvider: typeof MemoryKvProvider } {
  kit ??= handed;
  return { MemoryStore, MemoryKvProvider };
}

/** memoryKv's store alone (a call a bundler can drop where it is unused). */
export function memoryStoreClass(handed: MemoryKit): typeof MemoryStore {
  return memoryKv(handed).MemoryStore;
}

/** memoryKv's provider alone (a call a bundler can drop where it is unused). */
export function memoryProviderClass(handed: MemoryKit): typeof MemoryKvProvider {
  return memoryKv(handed).MemoryKvProvider;
}

interface SharedData {
  readonly map: KeyTable;
  readonly lock: InstanceType<MemoryKit['RWLock']>;
  /** Set by drop(): instances still holding it are closed, as a deleted database closes its connections. */
  dropped: boolean;
}

/** What a key held before a write: nothing. */
const ABSENT = /* @__PURE__ */ Symbol('absent');
type Old = ReadonlyJSONValue | typeof ABSENT;

/** Pairs a key group holds in one flat array before it takes a Map. */
const SMALL_GROUP_PAIRS = 8;

/**
 * The leaves of one key group with their values: a few in a flat array
 * ([leaf, value, …], ABSENT where free; room for three pairs at first, as a
 * dag chunk has two or three keys), more in a Map.
 */
type Group = (string | Old)[] | Map<string, ReadonlyJSONValue>;

/**
 * The data of a store: each key split at its last '/' into a group (the text
 * up to and with that '/') and a leaf (the rest), the group's leaves kept
 * together. Keys that share all but their end share one copy of that text:
 * a dag chunk's keys ('c/<hash>/d', '/r', '/n') one group string and one
 * array of six slots, where a flat Map held three strings of 18–20
 * characters and three entries (about 110 against 200 bytes per chunk; a
 * store of 100,000 commits held 25 MiB of keys and table); a mutation log's
 * entries ('l/<client>/<id>') one Map keyed by id.
 */
class KeyTable {
  readonly #groups = new Map<string, Group>();

  get(key: string): ReadonlyJSONValue | undefined {
    const i = key.lastIndexOf('/') + 1;
    const group = this.#groups.get(key.slice(0, i));
    if (group === undefined) return undefined;
    const leaf = key.slice(i);
    if (group instanceof Map) return group.get(leaf);
    const at = pairIndex(group, leaf);
    return at === -1 ? undefined : (group[at + 1] as ReadonlyJSONValue);
  }

  /** Sets the key; returns what it held. */
  put(key: string, value: ReadonlyJSONValue): Old {
    const i = key.lastIndexOf('/') + 1;
    const name = key.slice(0, i);
    const leaf = key.slice(i);
    const group = this.#groups.get(name);
    if (group === undefined) {
      // A literal of the exact length (an array pushed to grows a spare capacity of 16 or more).
      const pairs: (string | Old)[] = [leaf, value, ABSENT, ABSENT, ABSENT, ABSENT];
      // A copy of its own: a slice of a longer key would hold that key's text alive.
      this.#groups.set(i === 0 ? '' : kit.flatString(key.slice(0, i - 1) + '/'), pairs);
      return ABSENT;
    }
    if (group instanceof Map) {
      const old = group.has(leaf) ? group.get(leaf)! : ABSENT;
      group.set(leaf, value);
      return old;
    }
    const at = pairIndex(group, leaf);
    if (at !== -1) {
      const old = group[at + 1] as ReadonlyJSONValue;
      group[at + 1] = value;
      return old;
    }
    const free = pairIndex(group, ABSENT);
    if (free !== -1) {
      group[free] = leaf;
      group[free + 1] = value;
    } else if (group.length < SMALL_GROUP_PAIRS * 2) {
      this.#groups.set(name, group.concat([leaf, value]));
    } else {
      const map = new Map<string, ReadonlyJSONValue>();
      for (let j = 0; j < group.length; j += 2) map.set(group[j] as string, group[j + 1] as ReadonlyJSONValue);
      map.set(leaf, value);
      this.#groups.set(name, map);
    }
    return ABSENT;
  }

  /** Deletes the key; returns what it held. */
  delete(key: string): Old {
    const i = key.lastIndexOf('/') + 1;
    const name = key.slice(0, i);
    const group = this.#groups.get(name);
    if (group === undefined) return ABSENT;
    const leaf = key.slice(i);
    if (group instanceof Map) {
      if (!group.has(leaf)) return ABSENT;
      const old = group.get(leaf)!;
      group.delete(leaf);
      if (group.size === 0) this.#groups.delete(name);
      return old;
    }
    const at = pairIndex(group, leaf);
    if (at === -1) return ABSENT;
    const old = group[at + 1] as ReadonlyJSONValue;
    group[at] = ABSENT;
    group[at + 1] = ABSENT;
    if (pairIndex(group, ABSENT, true) === -1) this.#groups.delete(name);
    return old;
  }
}

/** Where `leaf` is in a group's pairs (-1: nowhere); with `other`, the first pair whose leaf is anything else. */
function pairIndex(pairs: readonly (string | Old)[], leaf: string | typeof ABSENT, other = false): number {
  for (let j = 0; j < pairs.length; j += 2) if ((pairs[j] === leaf) !== other) return j;
  return -1;
}

/** What a write's put or del resolves to (nothing to wait for in memory: one promise for all of them). */
const DONE: Promise<void> = /* @__PURE__ */ Promise.resolve();

const registry = new Map<string, SharedData>();

function shared(name: string): SharedData {
  let data = registry.get(name);
  if (data === undefined) {
    data = { map: new KeyTable(), lock: new kit.RWLock(), dropped: false };
    registry.set(name, data);
  }
  return data;
}

export class MemoryStore implements KvStore {
  readonly name: string;
  readonly #data: SharedData;
  #closed = false;

  constructor(name: string) {
    kit.assertStoreName(name);
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
    if (this.#closed) throw new kit.StoreClosedError();
    if (this.#data.dropped) throw new kit.StoreClosedError(kit.DROPPED);
  }
}

class MemoryRead implements KvRead {
  protected readonly map: KeyTable;
  #unlock: Unlock | undefined;

  constructor(map: KeyTable, unlock: Unlock) {
    this.map = map;
    this.#unlock = unlock;
  }

  async has(key: string): Promise<boolean> {
    this.assertOpen();
    return this.map.get(key) !== undefined;
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

  protected get isOpen(): boolean {
    return this.#unlock !== undefined;
  }

  protected assertOpen(): void {
    if (this.#unlock === undefined) throw new kit.TransactionClosedError();
  }
}

/**
 * Writes go to the shared map at once (the write lock keeps every other
 * transaction out until this one ends), with what they replaced noted so that
 * a write released without commit puts it back. No second map of pending
 * writes: a store of 100,000 commits (300,000 keys) held one beside the data.
 */
class MemoryWrite extends MemoryRead implements KvWrite {
  /** Keys written, oldest first, and what each held before (ABSENT: nothing). */
  #undoKeys: string[] = [];
  #undoValues: Old[] = [];

  put(key: string, value: ReadonlyJSONValue): Promise<void> {
    if (!this.isOpen) return Promise.reject(new kit.TransactionClosedError());
    this.#undoKeys.push(key);
    this.#undoValues.push(this.map.put(key, value));
    return DONE;
  }

  del(key: string): Promise<void> {
    if (!this.isOpen) return Promise.reject(new kit.TransactionClosedError());
    const old = this.map.delete(key);
    if (old !== ABSENT) {
      this.#undoKeys.push(key);
      this.#undoValues.push(old);
    }
    return DONE;
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
      else this.map.put(keys[i]!, old);
    }
    super.release();
  }
}

/**
 * Stores in memory, shared by name within one JS realm (as tabs share one
 * origin's IndexedDB). A provider can be given a namespace so that tests or
 * several apps in one process keep apart.
 */
export class MemoryKvProvider implements KvProvider {
  readonly durable = false;
  readonly #namespace: string;

  /** `namespace` prefixes every store name; providers with the same namespace share stores. */
  constructor(namespace = '') {
    this.#namespace = namespace;
  }

  async open(name: string): Promise<KvStore> {
    kit.assertStoreName(name);
    return new MemoryStore(this.#namespaced(name));
  }

  async list(): Promise<readonly string[]> {
    const prefix = this.#namespaced('');
    return MemoryStore.names()
      .filter((n) => n.startsWith(prefix))
      .map((n) => n.slice(prefix.length));
  }

  async drop(name: string): Promise<void> {
    MemoryStore.drop(this.#namespaced(name));
  }

  #namespaced(name: string): string {
    return this.#namespace === '' ? name : `${this.#namespace}/${name}`;
  }
}
