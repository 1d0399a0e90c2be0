import { describe, expect, it } from 'vitest';
import { acquireStoreSlot, MAX_STORE_SLOTS, type LockManagerLike, type SlotMemory } from './store-slot';

/** Exclusive locks in one process, granted as navigator.locks grants them (queued, or at once with ifAvailable). */
class InProcessLocks implements LockManagerLike {
  readonly held = new Set<string>();
  readonly #waiting = new Map<string, (() => void)[]>();

  async request<T>(
    name: string,
    options: { ifAvailable?: true; mode: 'exclusive'; signal?: AbortSignal },
    callback: (lock: unknown) => Promise<T> | T,
  ): Promise<T> {
    if (this.held.has(name)) {
      if (options.ifAvailable) return callback(null);
      await new Promise<void>((resolve, reject) => {
        const queue = this.#waiting.get(name) ?? [];
        queue.push(resolve);
        this.#waiting.set(name, queue);
        options.signal?.addEventListener('abort', () => {
          queue.splice(queue.indexOf(resolve), 1);
          reject(options.signal!.reason);
        });
      });
    }
    this.held.add(name);
    try {
      return await callback({ name });
    } finally {
      this.held.delete(name);
      this.#waiting.get(name)?.shift()?.();
    }
  }
}

function memory(): SlotMemory & { readonly slots: Map<string, number> } {
  const slots = new Map<string, number>();
  return { slots, get: (base) => slots.get(base), set: (base, index) => void slots.set(base, index) };
}

describe('acquireStoreSlot', () => {
  it('gives each holder the first free slot and hands a freed slot to the next', async () => {
    const locks = new InProcessLocks();
    const a = (await acquireStoreSlot('db', locks))!;
    const b = (await acquireStoreSlot('db', locks))!;
    const c = (await acquireStoreSlot('db', locks))!;
    expect([a.name, b.name, c.name]).toEqual(['db', 'db~1', 'db~2']);
    a.release();
    await Promise.resolve();
    expect((await acquireStoreSlot('db', locks))!.name).toBe('db');
  });

  it('says so when every slot is taken', async () => {
    const locks = new InProcessLocks();
    for (let i = 0; i < MAX_STORE_SLOTS; i++) await acquireStoreSlot('full', locks);
    expect(await acquireStoreSlot('full', locks)).toBeUndefined();
  });

  it('a reload waits for the slot its tab had, even while the old page still holds it', async () => {
    const locks = new InProcessLocks();
    const tabOne = memory();
    const other = await acquireStoreSlot('db', locks);
    const before = (await acquireStoreSlot('db', locks, tabOne))!;
    expect(before.name).toBe('db~1');
    const reloaded = acquireStoreSlot('db', locks, tabOne, 60_000);
    setTimeout(() => before.release(), 5);
    expect((await reloaded)!.name).toBe('db~1');
    other!.release();
  });

  it('takes another slot when the remembered one stays taken', async () => {
    const locks = new InProcessLocks();
    const tab = memory();
    tab.set('db', 0);
    const holder = await acquireStoreSlot('db', locks);
    expect((await acquireStoreSlot('db', locks, tab, 1))!.name).toBe('db~1');
    expect(tab.slots.get('db')).toBe(1);
    holder!.release();
  });

  it('uses the name as is without a lock manager', async () => {
    expect((await acquireStoreSlot('plain', undefined))!.name).toBe('plain');
  });
});
