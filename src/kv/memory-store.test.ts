import { afterEach, describe, expect, it } from 'vitest';
import { InvalidStoreNameError, StoreClosedError, TransactionClosedError } from './errors';
import { MemoryStore as PublicMemoryStore } from './memory-kit';
import { MemoryStore } from './memory-store';

const NAME = 'memory-store-test';

afterEach(() => MemoryStore.drop(NAME));

describe('MemoryStore', () => {
  it('commits puts and dels atomically; a write sees its own changes', async () => {
    const store = new MemoryStore(NAME);
    const w = await store.write();
    await w.put('a', 1);
    await w.put('b', { x: [1, 2] });
    expect(await w.get('a')).toBe(1);
    expect(await w.has('b')).toBe(true);
    await w.del('a');
    expect(await w.has('a')).toBe(false);
    await w.commit();

    const r = await store.read();
    expect(await r.get('a')).toBeUndefined();
    expect(await r.get('b')).toEqual({ x: [1, 2] });
    r.release();
  });

  it('a released write leaves nothing behind', async () => {
    const store = new MemoryStore(NAME);
    const w = await store.write();
    await w.put('a', 1);
    w.release();
    const r = await store.read();
    expect(await r.has('a')).toBe(false);
    r.release();
  });

  it('keys that differ only after their last slash, or in where it is, stay apart', async () => {
    const store = new MemoryStore(NAME);
    const keys = ['x', '/x', 'x/', 'a/x', 'a/', 'a//x', 'a/b/x', 'a/b', 'c/h1/d', 'c/h1/r', 'c/h1/n', ''];
    const w = await store.write();
    for (const [i, key] of keys.entries()) await w.put(key, i);
    // A group of many leaves (a mutation log: 'l/<client>/<id>'), past the size a flat array holds.
    for (let id = 1; id <= 20; id++) await w.put(`l/client/${id}`, { id });
    await w.commit();
    const r = await store.read();
    for (const [i, key] of keys.entries()) expect(await r.get(key)).toBe(i);
    for (let id = 1; id <= 20; id++) expect(await r.get(`l/client/${id}`)).toEqual({ id });
    expect(await r.has('c/h1/x')).toBe(false);
    expect(await r.has('c/h1')).toBe(false);
    expect(await r.has('l/client/21')).toBe(false);
    r.release();
  });

  it('deletes and overwrites in groups small and large, and a released write puts back what they replaced', async () => {
    const store = new MemoryStore(NAME);
    const setUp = await store.write();
    for (const leaf of ['d', 'r', 'n']) await setUp.put(`c/h1/${leaf}`, leaf);
    for (let id = 1; id <= 20; id++) await setUp.put(`l/client/${id}`, id);
    await setUp.commit();

    const undone = await store.write();
    await undone.del('c/h1/r');
    await undone.put('c/h1/n', 'changed');
    await undone.put('c/h1/e', 'new');
    for (let id = 1; id <= 20; id += 2) await undone.del(`l/client/${id}`);
    await undone.put('l/client/2', 'changed');
    await undone.del('absent/key');
    expect(await undone.has('c/h1/r')).toBe(false);
    expect(await undone.get('c/h1/e')).toBe('new');
    undone.release();

    const kept = await store.write();
    expect(await kept.get('c/h1/r')).toBe('r');
    expect(await kept.get('c/h1/n')).toBe('n');
    expect(await kept.has('c/h1/e')).toBe(false);
    for (let id = 1; id <= 20; id++) expect(await kept.get(`l/client/${id}`)).toBe(id);
    // A group emptied of every key is gone; its keys can come back.
    for (const leaf of ['d', 'r', 'n']) await kept.del(`c/h1/${leaf}`);
    for (let id = 1; id <= 20; id++) await kept.del(`l/client/${id}`);
    await kept.put('c/h1/d', 'again');
    await kept.commit();
    const r = await store.read();
    expect(await r.get('c/h1/d')).toBe('again');
    expect(await r.has('c/h1/r')).toBe(false);
    for (let id = 1; id <= 20; id++) expect(await r.has(`l/client/${id}`)).toBe(false);
    r.release();
  });

  it('two instances with the same name share data, other names do not', async () => {
    const a = new MemoryStore(NAME);
    const b = new MemoryStore(NAME);
    const other = new MemoryStore(`${NAME}-other`);
    const w = await a.write();
    await w.put('k', 'v');
    await w.commit();
    const r = await b.read();
    expect(await r.get('k')).toBe('v');
    r.release();
    const r2 = await other.read();
    expect(await r2.has('k')).toBe(false);
    r2.release();
    MemoryStore.drop(`${NAME}-other`);
  });

  it('drop forgets the data', async () => {
    const w = await new MemoryStore(NAME).write();
    await w.put('k', 'v');
    await w.commit();
    MemoryStore.drop(NAME);
    const r = await new MemoryStore(NAME).read();
    expect(await r.has('k')).toBe(false);
    r.release();
  });

  it('a writer waits for readers, readers wait for the writer', async () => {
    const store = new MemoryStore(NAME);
    const r = await store.read();
    let wrote = false;
    const writing = store.write().then(async (w) => {
      await w.put('k', 1);
      await w.commit();
      wrote = true;
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(wrote).toBe(false);
    expect(await r.has('k')).toBe(false);
    r.release();
    await writing;
    expect(wrote).toBe(true);
  });

  it('rejects use after release and after close, and an empty name', async () => {
    const store = new MemoryStore(NAME);
    const r = await store.read();
    r.release();
    await expect(r.get("a")).rejects.toBeInstanceOf(TransactionClosedError);
    const w = await store.write();
    await w.commit();
    await expect(w.put("a", 1)).rejects.toBeInstanceOf(TransactionClosedError);
    await store.close();
    expect(store.closed).toBe(true);
    await expect(store.read()).rejects.toBeInstanceOf(StoreClosedError);
    expect(() => new MemoryStore('')).toThrow(InvalidStoreNameError);
    expect(() => new MemoryStore('')).toThrow('name is required and must be non-empty');
  });
});

describe("the package's MemoryStore (its code loaded when it is made)", () => {
  it('is the memory store of that name: the same data as the one code imports directly; closes, refuses names, names and drops', async () => {
    const lazy = new PublicMemoryStore(NAME);
    const w = await lazy.write();
    await w.put('k', 'v');
    await w.commit();
    const direct = await new MemoryStore(NAME).read();
    expect(await direct.get('k')).toBe('v');
    direct.release();
    expect(PublicMemoryStore.names()).toContain(NAME);
    expect(() => new PublicMemoryStore('')).toThrow(InvalidStoreNameError);
    const other = new PublicMemoryStore(NAME);
    await other.read().then((r) => r.release());
    PublicMemoryStore.drop(NAME);
    expect(other.closed).toBe(true);
    await expect(other.read()).rejects.toThrow(StoreClosedError);
    await lazy.close();
    expect(lazy.closed).toBe(true);
    await expect(lazy.write()).rejects.toThrow(StoreClosedError);
  });
});
