/**
 * What every KvProvider must do, as a test suite any implementation runs:
 * `describeKvProviderContract('mine', async () => ({ provider: () => new Mine(dir) }))`.
 *
 * A *place* is where a family of stores lives (an IndexedDB origin, a data
 * directory, a memory namespace). Each test gets a fresh place; `provider()`
 * may be called several times and every provider of one place must see the
 * same stores, as tabs or processes of one user do.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidStoreNameError, StoreClosedError, TransactionClosedError } from './errors';
import type { KvProvider } from './provider';
import type { KvStore, ReadonlyJSONValue } from './types';

export interface KvProviderPlace {
  /** A provider over this place (a new one on each call, or the same one where there can be only one). */
  provider(): KvProvider;
  /** Removes the place once the test is done. */
  cleanup?(): Promise<void>;
}

/** Writers that increment one counter at once, and increments per writer. */
const CONCURRENT_WRITERS = 8;
const INCREMENTS_PER_WRITER = 20;

/** Names that are awkward as file or database names. */
const AWKWARD_NAMES = ['roomsync:alice%40example.com:room%2F1', 'roomsync:alice:room:log', 'Store', 'store', 'ünï cödé ✓', '../up', '.', 'a~1'];

/** Lets other tasks (timers, I/O, other transactions) run. */
const nextTurn = () => new Promise<void>((done) => setImmediate(done));

async function putAll(store: KvStore, entries: Record<string, ReadonlyJSONValue>): Promise<void> {
  const w = await store.write();
  for (const [key, value] of Object.entries(entries)) await w.put(key, value);
  await w.commit();
}

async function readKey(store: KvStore, key: string): Promise<ReadonlyJSONValue | undefined> {
  const r = await store.read();
  try {
    return await r.get(key);
  } finally {
    r.release();
  }
}

async function increment(store: KvStore, key: string): Promise<void> {
  const w = await store.write();
  try {
    const value = ((await w.get(key)) as number | undefined) ?? 0;
    await w.put(key, value + 1);
    await w.commit();
  } catch (error) {
    w.release();
    throw error;
  }
}

export function describeKvProviderContract(name: string, makePlace: () => Promise<KvProviderPlace> | KvProviderPlace): void {
  describe(`KvProvider contract: ${name}`, () => {
    const opened: KvStore[] = [];
    let place: KvProviderPlace | undefined;

    async function fresh(): Promise<KvProviderPlace> {
      place = await makePlace();
      return place;
    }

    async function open(provider: KvProvider, storeName: string): Promise<KvStore> {
      const store = await provider.open(storeName);
      opened.push(store);
      return store;
    }

    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      await place?.cleanup?.();
      place = undefined;
    });

    it('commits puts and dels; a write sees its own changes; values come back as JSON carries them', async () => {
      const store = await open((await fresh()).provider(), 'basics');
      const withProto = JSON.parse('{"b":1,"__proto__":{"polluted":true},"a":[1,"two",null,{"z":0,"y":false}]}') as ReadonlyJSONValue;
      const w = await store.write();
      await w.put('object', withProto);
      await w.put('string', 'ünï ✓ \u0000');
      await w.put('number', -1.5e-7);
      await w.put('gone', true);
      expect(await w.get('string')).toBe('ünï ✓ \u0000');
      await w.del('gone');
      expect(await w.has('gone')).toBe(false);
      expect(await w.has('number')).toBe(true);
      await w.commit();

      const r = await store.read();
      const object = (await r.get('object')) as Record<string, unknown>;
      expect(Object.keys(object)).toEqual(['b', '__proto__', 'a']);
      expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(object, '__proto__')?.value).toEqual({ polluted: true });
      expect(object.a).toEqual([1, 'two', null, { z: 0, y: false }]);
      expect(await r.get('number')).toBe(-1.5e-7);
      expect(await r.has('gone')).toBe(false);
      expect(await r.get('missing')).toBeUndefined();
      r.release();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('a commit is all or nothing for readers: they see every change of it or none', async () => {
      const p = await fresh();
      const writer = await open(p.provider(), 'atomic');
      const reader = await open(p.provider(), 'atomic');
      await putAll(writer, { a: 0, b: 0, c: 0 });
      let committed = false;
      const writing = (async () => {
        const w = await writer.write();
        await w.put('a', 1);
        await nextTurn();
        await w.put('b', 1);
        await nextTurn();
        await w.del('c');
        await nextTurn();
        await w.commit();
        committed = true;
      })();
      // Readers may wait for the writer (memory) or read past it (SQLite, IndexedDB): either way, never half of it.
      const seen = new Set<string>();
      while (!committed) {
        const r = await reader.read();
        seen.add(JSON.stringify([await r.get('a'), await r.get('b'), (await r.get('c')) ?? null]));
        r.release();
        await nextTurn();
      }
      await writing;
      const r = await reader.read();
      seen.add(JSON.stringify([await r.get('a'), await r.get('b'), (await r.get('c')) ?? null]));
      r.release();
      expect([...seen].filter((s) => s !== '[0,0,0]' && s !== '[1,1,null]')).toEqual([]);
      expect(seen.has('[1,1,null]')).toBe(true);
    });

    it('a released write leaves nothing behind and frees the store for the next writer', async () => {
      const store = await open((await fresh()).provider(), 'release');
      const w = await store.write();
      await w.put('a', 1);
      w.release();
      w.release();
      expect(await readKey(store, 'a')).toBeUndefined();
      await putAll(store, { a: 2 });
      expect(await readKey(store, 'a')).toBe(2);
    });

    it('a transaction is closed once committed or released', async () => {
      const store = await open((await fresh()).provider(), 'closed-tx');
      const w = await store.write();
      await w.commit();
      await expect(w.put('a', 1)).rejects.toBeInstanceOf(TransactionClosedError);
      await expect(w.get('a')).rejects.toBeInstanceOf(TransactionClosedError);
      await expect(w.commit()).rejects.toBeInstanceOf(TransactionClosedError);
      const r = await store.read();
      r.release();
      await expect(r.has('a')).rejects.toBeInstanceOf(TransactionClosedError);
    });

    it('refuses an empty store name', async () => {
      await expect((await fresh()).provider().open('')).rejects.toBeInstanceOf(InvalidStoreNameError);
    });

    it('lists the stores that exist, awkward names included, and drop removes one with its data', async () => {
      const p = await fresh();
      const provider = p.provider();
      for (const storeName of AWKWARD_NAMES) await putAll(await open(provider, storeName), { name: storeName });
      const listed = await provider.list();
      if (listed === undefined) return; // The platform cannot list (allowed by the contract).
      expect([...listed].sort()).toEqual([...AWKWARD_NAMES].sort());
      for (const storeName of AWKWARD_NAMES) expect(await readKey(await open(p.provider(), storeName), 'name')).toBe(storeName);

      await provider.drop('Store');
      await provider.drop('never-existed');
      expect([...((await provider.list()) ?? [])].sort()).toEqual(AWKWARD_NAMES.filter((n) => n !== 'Store').sort());
      expect(await readKey(await open(provider, 'Store'), 'name')).toBeUndefined();
      expect(await readKey(await open(provider, 'store'), 'name')).toBe('store');
    });

    it('a dropped store closes every instance holding it', async () => {
      const p = await fresh();
      const a = await open(p.provider(), 'dropped');
      const b = await open(p.provider(), 'dropped');
      await putAll(a, { k: 1 });
      await p.provider().drop('dropped');
      for (const store of [a, b]) {
        expect(store.closed).toBe(true);
        await expect(store.read()).rejects.toBeInstanceOf(StoreClosedError);
        await expect(store.write()).rejects.toBeInstanceOf(StoreClosedError);
      }
      expect(await readKey(await open(p.provider(), 'dropped'), 'k')).toBeUndefined();
    });

    it('a closed store refuses transactions; other instances of its name go on', async () => {
      const p = await fresh();
      const a = await open(p.provider(), 'close');
      const b = await open(p.provider(), 'close');
      await a.close();
      expect(a.closed).toBe(true);
      await expect(a.read()).rejects.toBeInstanceOf(StoreClosedError);
      await expect(a.write()).rejects.toBeInstanceOf(StoreClosedError);
      expect(b.closed).toBe(false);
      await putAll(b, { k: 'still here' });
      expect(await readKey(await open(p.provider(), 'close'), 'k')).toBe('still here');
    });

    it('two instances of one name, from two providers, share data; other names do not', async () => {
      const p = await fresh();
      const a = await open(p.provider(), 'shared');
      const b = await open(p.provider(), 'shared');
      const other = await open(p.provider(), 'shared-other');
      await putAll(a, { k: 'from a' });
      expect(await readKey(b, 'k')).toBe('from a');
      await putAll(b, { k: 'from b' });
      expect(await readKey(a, 'k')).toBe('from b');
      expect(await readKey(other, 'k')).toBeUndefined();
    });

    it('read-modify-write increments from many concurrent writers never lose an update', async () => {
      const p = await fresh();
      const writers = await Promise.all(Array.from({ length: CONCURRENT_WRITERS }, () => open(p.provider(), 'counter')));
      await Promise.all(
        writers.map(async (store) => {
          for (let i = 0; i < INCREMENTS_PER_WRITER; i++) await increment(store, 'n');
        }),
      );
      expect(await readKey(writers[0]!, 'n')).toBe(CONCURRENT_WRITERS * INCREMENTS_PER_WRITER);
    });

    it('write transactions of one store instance run one at a time', async () => {
      const store = await open((await fresh()).provider(), 'serial');
      const order: string[] = [];
      const first = await store.write();
      const second = store.write().then((w) => {
        order.push('second began');
        return w;
      });
      await nextTurn();
      order.push('first commits');
      await first.commit();
      (await second).release();
      expect(order).toEqual(['first commits', 'second began']);
    });
  });
}
