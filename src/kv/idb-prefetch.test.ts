// The fake's classes are global too, as in a browser (a prefetch builds an IDBKeyRange).
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { objectStoresWithoutGetAllRecords } from './idb-records.testing';
import { openStore } from './idb-store';

afterEach(() => vi.restoreAllMocks());

describe('prefetch', () => {
  it('asks for keys and values apart where the object store has no getAllRecords, and later gets ask nothing', async () => {
    objectStoresWithoutGetAllRecords();
    expect(typeof (IDBObjectStore.prototype as { getAllRecords?: unknown }).getAllRecords).toBe('function');
    const store = await openStore('prefetch-without-records', { idbFactory: new IDBFactory(), logger: { warn() {} } });
    const setup = await store.write();
    await setup.put('m/g/a', 1);
    await setup.put('m/g/b', 2);
    await setup.put('n/other', 3);
    await setup.commit();
    for (let round = 0; round < 2; round++) {
      const getAllKeys = vi.spyOn(IDBObjectStore.prototype, 'getAllKeys');
      const getAll = vi.spyOn(IDBObjectStore.prototype, 'getAll');
      const get = vi.spyOn(IDBObjectStore.prototype, 'get');
      const w = await store.write();
      await w.prefetch!('m/g/');
      expect([getAllKeys.mock.calls.length, getAll.mock.calls.length]).toEqual([1, 1]);
      expect([await w.get('m/g/a'), await w.get('m/g/b')]).toEqual([1, 2]);
      expect(get).not.toHaveBeenCalled();
      w.release();
      vi.mocked(getAllKeys).mockRestore();
      vi.mocked(getAll).mockRestore();
      vi.mocked(get).mockRestore();
    }
    await store.close();
  });
});
