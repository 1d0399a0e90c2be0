// The fake's classes are global too, as in a browser (a prefetch builds an IDBKeyRange).
import 'fake-indexeddb/auto';
import { IDBFactory, forceCloseDatabase } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { StoreClosedError, StoreConflictError } from './errors';
import { IDBStore, openStore } from './idb-store';
import { MemoryStore } from './memory-store';
import type { KvLogger } from './types';

/** A fake IndexedDB that also hands the test every native connection it opens. */
function capturingFactory(): { factory: IDBFactory; connections: IDBDatabase[] } {
  const factory = new IDBFactory();
  const connections: IDBDatabase[] = [];
  const open = factory.open.bind(factory);
  factory.open = (name: string, version?: number) => {
    const request = open(name, version);
    request.addEventListener('success', () => connections.push(request.result));
    return request;
  };
  return { factory, connections };
}

const silent: KvLogger = { warn: () => {} };

/** Records each IndexedDB transaction opened until `restore()`. */
function recordTransactions(): { made: IDBTransaction[]; restore: () => void } {
  const made: IDBTransaction[] = [];
  const transaction = IDBDatabase.prototype.transaction;
  const spy = vi.spyOn(IDBDatabase.prototype, 'transaction').mockImplementation(function (this: IDBDatabase, ...args) {
    const tx = transaction.apply(this, args);
    made.push(tx);
    return tx;
  });
  return { made, restore: () => spy.mockRestore() };
}

describe('IDBStore on fake-indexeddb', () => {
  it('writes, closes, reopens and reads back', async () => {
    const factory = new IDBFactory();
    const store = await openStore('db1', { idbFactory: factory, logger: silent });
    expect(store).toBeInstanceOf(IDBStore);
    const w = await store.write();
    await w.put('a', { n: 1 });
    await w.put('b', [1, 'two']);
    await w.put('c', true);
    expect(await w.get('a')).toEqual({ n: 1 });
    await w.del('c');
    expect(await w.has('c')).toBe(false);
    await w.commit();
    await store.close();
    expect(store.closed).toBe(true);

    const again = await openStore('db1', { idbFactory: factory, logger: silent });
    const r = await again.read();
    expect(await r.get('a')).toEqual({ n: 1 });
    expect(await r.get('b')).toEqual([1, 'two']);
    expect(await r.has('c')).toBe(false);
    expect(await r.get('missing')).toBeUndefined();
    r.release();
    await again.close();
  });

  it('a read keeps working after its transaction auto-committed (reads across a timer)', async () => {
    const factory = new IDBFactory();
    const store = await openStore('db2', { idbFactory: factory, logger: silent });
    const w = await store.write();
    await w.put('x', 1);
    await w.commit();
    const r = await store.read();
    expect(await r.get('x')).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(await r.get('x')).toBe(1);
    r.release();
    // A write that only writes may span a timer too.
    const blind = await store.write();
    await new Promise((resolve) => setImmediate(resolve));
    await blind.put('y', 2);
    await blind.commit();
    const r2 = await store.read();
    expect(await r2.get('y')).toBe(2);
    r2.release();
    await store.close();
  });

  it('a write whose transaction ended after it read is refused whole: another tab may have written in between', async () => {
    const factory = new IDBFactory();
    const store = await openStore('db2b', { idbFactory: factory, logger: silent });
    const other = await openStore('db2b', { idbFactory: factory, logger: silent });
    const init = await store.write();
    await init.put('n', 1);
    await init.commit();

    const w = await store.write();
    const n = (await w.get('n')) as number;
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // Another tab increments meanwhile.
    const o = await other.write();
    await o.put('n', ((await o.get('n')) as number) + 1);
    await o.commit();
    await w.put('n', n + 1);
    await w.put('extra', true);
    await expect(w.commit()).rejects.toBeInstanceOf(StoreConflictError);
    const r = await store.read();
    expect(await r.get('n')).toBe(2);
    expect(await r.get('extra')).toBeUndefined();
    r.release();
    await Promise.all([store.close(), other.close()]);
  });

  it('serialises writes of one store', async () => {
    const store = await openStore('db3', { idbFactory: new IDBFactory(), logger: silent });
    const order: string[] = [];
    const first = await store.write();
    const second = store.write().then(async (w) => {
      order.push('second');
      await w.commit();
    });
    await first.put('k', 1);
    order.push('first');
    await first.commit();
    await second;
    expect(order).toEqual(['first', 'second']);
    await store.close();
  });

  it('deletion of the database by another connection is a StoreClosedError', async () => {
    const factory = new IDBFactory();
    const store = await openStore('db4', { idbFactory: factory, logger: silent });
    const r = await store.read();
    await new Promise<void>((resolve, reject) => {
      const req = factory.deleteDatabase('db4');
      req.onsuccess = () => resolve();
      req.onerror = () => reject(req.error);
    });
    expect(store.closed).toBe(true);
    await expect(store.read()).rejects.toBeInstanceOf(StoreClosedError);
    await expect(store.write()).rejects.toThrow(/deleted or upgraded/);
    await expect(Promise.resolve().then(() => r.get('a'))).rejects.toBeInstanceOf(StoreClosedError);
  });

  it('a connection the browser terminates is a StoreClosedError', async () => {
    const { factory, connections } = capturingFactory();
    const store = await openStore('db5', { idbFactory: factory, logger: silent });
    forceCloseDatabase(connections[0] as never); // its typing wants the class, it takes an instance
    expect(store.closed).toBe(true);
    await expect(store.read()).rejects.toBeInstanceOf(StoreClosedError);
  });

  it("a connection closing without an event (Safari's InvalidStateError) is a StoreClosedError", async () => {
    const { factory, connections } = capturingFactory();
    const store = await openStore('db6', { idbFactory: factory, logger: silent });
    connections[0]!.close();
    const r = await store.read();
    await expect(Promise.resolve().then(() => r.get('a'))).rejects.toBeInstanceOf(StoreClosedError);
    expect(store.closed).toBe(true);
  });

  it('opens over a factory without the IndexedDB globals (a library IndexedDB in Node): reads and writes work, a prefetch is skipped', async () => {
    const keyRange = globalThis.IDBKeyRange;
    Reflect.deleteProperty(globalThis, 'IDBKeyRange');
    try {
      const store = await IDBStore.open('db-no-globals', new IDBFactory());
      const w = await store.write();
      await w.put('m/group/a', 1);
      await w.commit();
      const again = await store.write();
      await again.prefetch!('m/group/');
      expect(await again.get('m/group/a')).toBe(1);
      again.release();
      await store.close();
    } finally {
      globalThis.IDBKeyRange = keyRange;
    }
  });

  it('prefetch reads the keys under a prefix in one go: later gets of them ask IndexedDB nothing; pending writes still win', async () => {
    const factory = new IDBFactory();
    const store = await openStore('db-prefetch', { idbFactory: factory, logger: silent });
    const setup = await store.write();
    await setup.put('m/group/a', { n: 1 });
    await setup.put('m/group/b', { n: 2 });
    await setup.put('m/groups', ['a', 'b']);
    await setup.put('m/groupz', 'outside');
    await setup.commit();

    const gets = vi.spyOn(IDBObjectStore.prototype, 'get');
    try {
      const w = await store.write();
      await w.put('m/group/b', { n: 20 });
      await w.prefetch!('m/group/');
      gets.mockClear();
      expect(await w.get('m/group/a')).toEqual({ n: 1 });
      expect(await w.get('m/group/b')).toEqual({ n: 20 });
      expect(await w.get('m/group/c')).toBeUndefined();
      // Only the key under the prefix that is not stored (c) was asked for.
      expect(gets).toHaveBeenCalledTimes(1);
      expect(await w.get('m/groupz')).toBe('outside');
      expect(gets).toHaveBeenCalledTimes(2);
      await w.del('m/group/a');
      expect(await w.get('m/group/a')).toBeUndefined();
      await w.commit();
    } finally {
      gets.mockRestore();
    }

    const r = await store.read();
    expect(await r.get('m/group/a')).toBeUndefined();
    expect(await r.get('m/group/b')).toEqual({ n: 20 });
    r.release();
    await store.close();
  });

  it('knownAbsent: gets of keys the caller knows are not stored ask IndexedDB nothing; a key put or read before keeps what it has', async () => {
    const store = await openStore('db-known-absent', { idbFactory: new IDBFactory(), logger: silent });
    const setup = await store.write();
    await setup.put('h/read', 'r');
    await setup.commit();

    const gets = vi.spyOn(IDBObjectStore.prototype, 'get');
    try {
      const w = await store.write();
      await w.put('h/put', 'p');
      expect(await w.get('h/read')).toBe('r');
      gets.mockClear();
      w.knownAbsent!(['h/a', 'h/b', 'h/put', 'h/read']);
      expect(await w.get('h/a')).toBeUndefined();
      expect(await w.has('h/put')).toBe(true);
      expect(await w.get('h/put')).toBe('p');
      expect(await w.get('h/read')).toBe('r');
      expect(await w.get('h/b')).toBeUndefined();
      expect(gets).not.toHaveBeenCalled();
      await w.commit();
    } finally {
      gets.mockRestore();
    }
    await store.close();
  });

  it("a read made while a write commits rides on the write's transaction (no wait for its commit); one round only", async () => {
    const factory = new IDBFactory();
    const store = await openStore('db-ride', { idbFactory: factory, logger: silent });
    const setup = await store.write();
    await setup.put('a', 1);
    await setup.commit();

    const transactions = vi.spyOn(IDBDatabase.prototype, 'transaction');
    try {
      const w = await store.write();
      await w.put('a', 2);
      await w.put('b', 3);
      const committed = w.commit();
      const r = await store.read();
      // Asked of the committing transaction, after its writes; answered once its commit is done.
      const [a, b] = await Promise.all([r.get('a'), r.get('b')]);
      expect([a, b]).toEqual([2, 3]);
      expect(transactions.mock.calls.map((c) => c[1])).toEqual(['readwrite']);
      // The writes are done: a later request does not keep the write open, it has a transaction of its own.
      expect(await r.get('b')).toBe(3);
      expect(transactions.mock.calls.map((c) => c[1])).toEqual(['readwrite', 'readonly']);
      await committed;
      r.release();
    } finally {
      transactions.mockRestore();
    }
    await store.close();
  });

  it("a read riding on a write is answered at once for a key the write leaves alone, after the commit for a key it writes", async () => {
    const factory = new IDBFactory();
    const store = await openStore('db-ride-untouched', { idbFactory: factory, logger: silent });
    const setup = await store.write();
    await setup.put('a', 1);
    await setup.put('b', 1);
    await setup.commit();

    const { made, restore } = recordTransactions();
    try {
      const order: string[] = [];
      const w = await store.write();
      await w.put('a', 2);
      const committed = w.commit().then(() => void order.push('committed'));
      const r = await store.read();
      const a = r.get('a').then((v) => void order.push(`a=${v}`));
      const b = r.get('b').then((v) => void order.push(`b=${v}`));
      await Promise.all([a, b, committed]);
      expect(order).toEqual(['b=1', 'committed', 'a=2']);
      // Both rode on the write: no transaction of their own.
      expect(made.map((tx) => tx.mode)).toEqual(['readwrite']);
      r.release();
    } finally {
      restore();
    }
    await store.close();
  });

  it('a read that rode on a write whose commit aborted is asked again in a transaction of its own', async () => {
    const factory = new IDBFactory();
    const store = await openStore('db-ride-abort', { idbFactory: factory, logger: silent });
    const setup = await store.write();
    await setup.put('a', 1);
    await setup.commit();

    const { made, restore } = recordTransactions();
    try {
      const w = await store.write();
      await w.put('a', 2);
      const committed = w.commit();
      committed.catch(() => {});
      const r = await store.read();
      const a = r.get('a');
      expect(made).toHaveLength(1);
      made[0]!.abort();
      // The write is undone: the read sees what is stored.
      expect(await a).toBe(1);
      await expect(committed).rejects.toThrow();
      expect(made.map((tx) => tx.mode)).toEqual(['readwrite', 'readonly']);
      r.release();
    } finally {
      restore();
    }
    await store.close();
  });

  it('a reader that rode on a write sees only committed data when the commit aborts after its request was answered', async () => {
    const factory = new IDBFactory();
    const store = await openStore('db-ride-late-abort', { idbFactory: factory, logger: silent });
    const setup = await store.write();
    await setup.put('x', 0);
    await setup.put('y', 0);
    await setup.commit();

    const { made, restore } = recordTransactions();
    try {
      const w = await store.write();
      await w.put('x', 1);
      await w.put('y', 1);
      const committed = w.commit().then(
        () => 'committed',
        () => 'aborted',
      );
      const r = await store.read();
      const x = await r.get('x');
      // The read's continuation: the write's commit fails now (a quota error, a forced close), if it has not ended.
      let aborted = true;
      try {
        made[0]!.abort();
      } catch {
        aborted = false;
      }
      const y = await r.get('y');
      r.release();
      const outcome = await committed;
      expect(outcome).toBe(aborted ? 'aborted' : 'committed');
      const stored = await store.read();
      const both = [await stored.get('x'), await stored.get('y')];
      stored.release();
      // All or nothing: the reader saw exactly what is stored, never the write's x beside the old y.
      expect([x, y]).toEqual(both);
      expect(both).toEqual(outcome === 'committed' ? [1, 1] : [0, 0]);
    } finally {
      restore();
    }
    await store.close();
  });

  it('a ridden request answered before its write aborts is asked again: the reader sees none of the write', async () => {
    const factory = new IDBFactory();
    const store = await openStore('db-ride-abort-answered', { idbFactory: factory, logger: silent });
    const setup = await store.write();
    await setup.put('x', 0);
    await setup.put('y', 0);
    await setup.commit();

    const get = IDBObjectStore.prototype.get;
    // The write's commit fails right after the read's request in it succeeded (e.g. a quota error at commit).
    const gets = vi.spyOn(IDBObjectStore.prototype, 'get').mockImplementation(function (this: IDBObjectStore, key) {
      const request = get.call(this, key);
      const tx = this.transaction;
      if (tx.mode === 'readwrite') request.addEventListener('success', () => tx.abort());
      return request;
    });
    const transactions = vi.spyOn(IDBDatabase.prototype, 'transaction');
    try {
      const w = await store.write();
      await w.put('x', 1);
      await w.put('y', 1);
      const committed = w.commit();
      committed.catch(() => {});
      const r = await store.read();
      const x = await r.get('x');
      const y = await r.get('y');
      r.release();
      await expect(committed).rejects.toThrow();
      expect([x, y]).toEqual([0, 0]);
      // It rode on the write, then was asked again in a readonly transaction.
      expect(transactions.mock.calls.map((c) => c[1])).toEqual(['readwrite', 'readonly']);
    } finally {
      gets.mockRestore();
      transactions.mockRestore();
    }
    await store.close();
  });

  it("a ridden request that fails does not fail the write: it is asked again in a transaction of the read's own", async () => {
    const factory = new IDBFactory();
    const store = await openStore('db-ride-fails', { idbFactory: factory, logger: silent });
    const get = IDBObjectStore.prototype.get;
    // A request that fails in the write's transaction (a key it holds cannot be added again): an error a read may meet there.
    const gets = vi.spyOn(IDBObjectStore.prototype, 'get').mockImplementation(function (this: IDBObjectStore, key) {
      return this.transaction.mode === 'readwrite' && key === 'k' ? this.add('again', key) : get.call(this, key);
    });
    try {
      const w = await store.write();
      await w.put('k', 'written');
      await w.put('other', 1);
      const committed = w.commit();
      const r = await store.read();
      const value = r.get('k');
      // Neither aborted nor told of the read's error (its transaction's error listeners would fail the commit).
      await expect(committed).resolves.toBeUndefined();
      expect(await value).toBe('written');
      r.release();
    } finally {
      gets.mockRestore();
    }
    const r = await store.read();
    expect([await r.get('k'), await r.get('other')]).toEqual(['written', 1]);
    r.release();
    await store.close();
  });

  it('a read asked after close() is refused, even where it could ride on a write still finishing its commit', async () => {
    const factory = new IDBFactory();
    const store = await openStore('db-ride-closed', { idbFactory: factory, logger: silent });
    const w = await store.write();
    await w.put('a', 1);
    const committed = w.commit();
    const r = await store.read();
    await store.close();
    await expect(r.get('a')).rejects.toBeInstanceOf(StoreClosedError);
    // The write placed before close() still commits.
    await committed;
    const again = await openStore('db-ride-closed', { idbFactory: factory, logger: silent });
    const check = await again.read();
    expect(await check.get('a')).toBe(1);
    check.release();
    await again.close();
  });

  it('falls back to a MemoryStore with a warning when IndexedDB cannot be opened', async () => {
    const broken = new IDBFactory();
    broken.open = () => {
      throw new DOMException('The user denied permission', 'SecurityError');
    };
    const logger = { warn: vi.fn() };
    const store = await openStore('db7', { idbFactory: broken, logger });
    expect(store).toBeInstanceOf(MemoryStore);
    expect(logger.warn).toHaveBeenCalledOnce();
    expect(String(logger.warn.mock.calls[0]![0])).toMatch(/falling back/);
    const w = await store.write();
    await w.put('k', 1);
    await w.commit();
    await store.close();
    MemoryStore.drop('db7');
  });

  it('falls back when the open request fails asynchronously', async () => {
    const failing = new IDBFactory();
    const open = failing.open.bind(failing);
    await new Promise<void>((resolve) => {
      const req = open('db8', 5);
      req.onsuccess = () => {
        req.result.close();
        resolve();
      };
    });
    // Opening an older version than the one on disk fails with VersionError.
    failing.open = (name: string) => open(name, 1);
    const logger = { warn: vi.fn() };
    const store = await openStore('db8', { idbFactory: failing, logger });
    expect(store).toBeInstanceOf(MemoryStore);
    expect(logger.warn).toHaveBeenCalledOnce();
    MemoryStore.drop('db8');
  });

  it('falls back when there is no IndexedDB at all', async () => {
    vi.stubGlobal('indexedDB', undefined);
    try {
      const logger = { warn: vi.fn() };
      const store = await openStore('db9', { logger });
      expect(store).toBeInstanceOf(MemoryStore);
      expect(logger.warn).toHaveBeenCalledOnce();
      MemoryStore.drop('db9');
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
