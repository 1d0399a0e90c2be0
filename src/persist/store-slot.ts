/**
 * One page at a time per local store. Two tabs of one browser share
 * IndexedDB; if both wrote the same store, each would overwrite the other's
 * head (and collect chunks the other still uses). So each client takes an
 * exclusive Web Lock on a store *slot*: the first free of `name`, `name~1`,
 * `name~2`, … A reload frees its slot as the page goes and takes it again, so
 * it finds what it left; a second tab gets a slot (and client group) of its own.
 * A reload's new page may start before the old one let go of its lock, so the
 * slot a tab last had is remembered (sessionStorage: per tab, kept across
 * reloads) and waited for, briefly, before any other is taken.
 */

/** The part of the Web Locks API this needs (navigator.locks). */
export interface LockManagerLike {
  request<T>(
    name: string,
    options: { ifAvailable?: true; mode: 'exclusive'; signal?: AbortSignal },
    callback: (lock: unknown) => Promise<T> | T,
  ): Promise<T>;
}

/** Which slot this tab had last (per store). */
export interface SlotMemory {
  get(baseName: string): number | undefined;
  set(baseName: string, index: number): void;
}

export const MAX_STORE_SLOTS = 16;
/** How long a page waits for the slot it had before a reload. */
export const PREVIOUS_SLOT_WAIT_MS = 3000;

export interface StoreSlot {
  /** The local store (IndexedDB database) name to open. */
  readonly name: string;
  /** Frees the slot; call after the store is closed. */
  release(): void;
}

export function slotName(baseName: string, index: number): string {
  return index === 0 ? baseName : `${baseName}~${index}`;
}

/**
 * The first free slot, held until `release`. Without a lock manager (Node, old
 * browsers) the base name is used as is. When every slot is taken, undefined.
 */
export async function acquireStoreSlot(
  baseName: string,
  locks: LockManagerLike | undefined,
  memory: SlotMemory = noSlotMemory,
  previousSlotWaitMs: number = PREVIOUS_SLOT_WAIT_MS,
): Promise<StoreSlot | undefined> {
  if (locks === undefined) return { name: baseName, release: () => {} };
  const take = (index: number, release: () => void): StoreSlot => {
    memory.set(baseName, index);
    return { name: slotName(baseName, index), release };
  };
  const previous = memory.get(baseName);
  if (previous !== undefined && previous >= 0 && previous < MAX_STORE_SLOTS) {
    const release = await hold(locks, lockName(baseName, previous), AbortSignal.timeout(previousSlotWaitMs));
    if (release !== undefined) return take(previous, release);
  }
  for (let index = 0; index < MAX_STORE_SLOTS; index++) {
    const release = await hold(locks, lockName(baseName, index));
    if (release !== undefined) return take(index, release);
  }
  return undefined;
}

function lockName(baseName: string, index: number): string {
  return `roomsync-store:${slotName(baseName, index)}`;
}

/**
 * Takes the lock — at once if free when there is no `signal`, else waiting
 * until the signal aborts — and holds it until the returned function is called.
 */
function hold(locks: LockManagerLike, name: string, signal?: AbortSignal): Promise<(() => void) | undefined> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const options = signal === undefined ? ({ ifAvailable: true, mode: 'exclusive' } as const) : ({ mode: 'exclusive', signal } as const);
  return new Promise((resolve) => {
    locks
      .request(name, options, (lock) => {
        if (lock === null) {
          resolve(undefined);
          return undefined;
        }
        resolve(release);
        return held;
      })
      .catch(() => resolve(undefined));
  });
}

const noSlotMemory: SlotMemory = { get: () => undefined, set: () => {} };

/** The slot memory of a browser tab: sessionStorage, when the page has it. */
export function sessionSlotMemory(): SlotMemory {
  const storage = (globalThis as { sessionStorage?: Storage }).sessionStorage;
  if (storage === undefined) return noSlotMemory;
  const key = (baseName: string) => `roomsync-slot:${baseName}`;
  return {
    get(baseName) {
      try {
        const value = Number(storage.getItem(key(baseName)));
        return storage.getItem(key(baseName)) === null || !Number.isInteger(value) ? undefined : value;
      } catch {
        return undefined;
      }
    },
    set(baseName, index) {
      try {
        storage.setItem(key(baseName), String(index));
      } catch {
        // Storage full or denied: the slot is then found by scanning.
      }
    },
  };
}
