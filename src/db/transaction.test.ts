import { describe, expect, it } from 'vitest';
import { makeTestStore } from './test-helpers';
import type { ReadTransaction, WriteTransaction } from './transaction-types';
import { TransactionClosedError, InvalidJSONValueError, InvalidKeyError, StoreClosedError } from './errors';

describe('read and write transactions', () => {
  it('puts, gets, deletes and scans', async () => {
    const { store } = await makeTestStore({
      mutators: {
        fill: async (tx: WriteTransaction) => {
          expect(await tx.isEmpty()).toBe(true);
          for (const k of ['a/1', 'a/2', 'a/3', 'b/1', 'c']) await tx.put(k, k.toUpperCase());
          expect(await tx.del('c')).toBe(true);
          expect(await tx.del('zz')).toBe(false);
          expect(await tx.get('a/2')).toBe('A/2');
          expect(tx.reason).toBe('initial');
          expect(tx.clientID).toBe('c1');
          expect(tx.mutationID).toBe(1);
        },
      },
    });
    await store.mutate('fill');
    await store.query(async (tx) => {
      expect(await tx.has('a/1')).toBe(true);
      expect(await tx.has('c')).toBe(false);
      expect(await tx.isEmpty()).toBe(false);
      expect(await tx.scan().keys().toArray()).toEqual(['a/1', 'a/2', 'a/3', 'b/1']);
      expect(await tx.scan({ prefix: 'a/' }).toArray()).toEqual(['A/1', 'A/2', 'A/3']);
      expect(await tx.scan({ prefix: 'a/', limit: 2 }).keys().toArray()).toEqual(['a/1', 'a/2']);
      expect(await tx.scan({ start: { key: 'a/2' } }).keys().toArray()).toEqual(['a/2', 'a/3', 'b/1']);
      expect(await tx.scan({ start: { key: 'a/2', exclusive: true } }).keys().toArray()).toEqual(['a/3', 'b/1']);
      expect(await tx.scan({ prefix: 'b', start: { key: 'a' } }).keys().toArray()).toEqual(['b/1']);
      expect(await tx.scan({ prefix: 'a', start: { key: 'a/25' }, limit: 5 }).entries().toArray()).toEqual([
        ['a/3', 'A/3'],
      ]);
      const seen: unknown[] = [];
      for await (const v of tx.scan({ prefix: 'a/' })) seen.push(v);
      expect(seen).toEqual(['A/1', 'A/2', 'A/3']);
      const keys: string[] = [];
      for await (const k of tx.scan().keys()) {
        keys.push(k);
        if (keys.length === 2) break;
      }
      expect(keys).toEqual(['a/1', 'a/2']);
    });
  });

  it('throws "Transaction is closed" when used after it ended', async () => {
    let kept: WriteTransaction | undefined;
    const { store } = await makeTestStore({
      mutators: {
        keep: async (tx: WriteTransaction) => {
          kept = tx;
        },
      },
    });
    await store.mutate('keep');
    await expect(kept!.get('a')).rejects.toThrow(TransactionClosedError);
    await expect(kept!.put('a', 1)).rejects.toThrow('Transaction is closed');
    let readTx: ReadTransaction | undefined;
    await store.query((tx) => {
      readTx = tx;
    });
    await expect(readTx!.has('a')).rejects.toThrow('Transaction is closed');
    expect(() => readTx!.scan()).toThrow('Transaction is closed');
  });

  it('rejects a non-JSON value at put, naming the key, and keeps nothing', async () => {
    class Thing {}
    const cyclic: Record<string, unknown> = {};
    cyclic.me = cyclic;
    const bad = [undefined, () => 1, NaN, Infinity, new Thing(), cyclic, new Date(), new Map()];
    const { store } = await makeTestStore({
      mutators: {
        putBad: async (tx: WriteTransaction, i: number) => {
          await tx.put('good', 1);
          await tx.put('bad-key', bad[i] as never);
        },
      },
    });
    for (let i = 0; i < bad.length; i++) {
      const err = await store.mutate('putBad', i).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidJSONValueError);
      expect((err as Error).message).toContain('bad-key');
    }
    expect(await store.query((tx) => tx.isEmpty())).toBe(true);
    expect(store.pendingMutations()).toEqual([]);
  });

  it('a throwing mutator changes nothing and its error reaches the caller', async () => {
    const { store } = await makeTestStore({
      mutators: {
        ok: async (tx: WriteTransaction) => tx.put('a', 1),
        boom: async (tx: WriteTransaction) => {
          await tx.put('a', 2);
          await tx.put('b', 2);
          throw new Error('boom');
        },
      },
    });
    await store.mutate('ok');
    await expect(store.mutate('boom')).rejects.toThrow('boom');
    expect(await store.query((tx) => tx.scan().entries().toArray())).toEqual([['a', 1]]);
    expect(store.pendingMutations().map((m) => m.id)).toEqual([1]);
    await store.mutate('ok');
    expect(store.pendingMutations().map((m) => m.id)).toEqual([1, 2]);
  });

  it('stores a frozen copy: later changes by the app do not reach the store', async () => {
    const { store } = await makeTestStore();
    const value = { list: [1, 2], nested: { x: 1 } };
    await store.mutate('put', { key: 'k', value });
    value.list.push(3);
    value.nested.x = 99;
    const read = (await store.query((tx) => tx.get('k'))) as { list: number[]; nested: { x: number } };
    expect(read).toEqual({ list: [1, 2], nested: { x: 1 } });
    expect(Object.isFrozen(read)).toBe(true);
    expect(Object.isFrozen(read.nested)).toBe(true);
    expect(() => read.list.push(4)).toThrow();
  });

  it('returns the mutator result and numbers mutations 1, 2, 3 with their args', async () => {
    const { store } = await makeTestStore({
      mutators: { echo: async (tx: WriteTransaction, args: unknown) => ({ id: tx.mutationID, args }) },
    });
    expect(await store.mutate('echo', { a: 1 })).toEqual({ id: 1, args: { a: 1 } });
    expect(await store.mutate('echo', 'x')).toEqual({ id: 2, args: 'x' });
    await store.mutate('echo', [1]);
    expect(store.pendingMutations()).toEqual([
      { id: 1, clientID: 'c1', name: 'echo', args: { a: 1 }, timestamp: expect.any(Number) },
      { id: 2, clientID: 'c1', name: 'echo', args: 'x', timestamp: expect.any(Number) },
      { id: 3, clientID: 'c1', name: 'echo', args: [1], timestamp: expect.any(Number) },
    ]);
  });

  it('numbers concurrent mutations contiguously, in call order', async () => {
    const { store } = await makeTestStore();
    await Promise.all(Array.from({ length: 30 }, (_, i) => store.mutate('inc', { key: 'n', by: i })));
    expect(store.pendingMutations().map((m) => m.id)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(store.pendingMutations().map((m) => (m.args as { by: number }).by)).toEqual(
      Array.from({ length: 30 }, (_, i) => i),
    );
    expect(await store.query((tx) => tx.get('n'))).toBe(435);
  });

  it('a scan iterated after its transaction ended throws "Transaction is closed"', async () => {
    const { store } = await makeTestStore();
    await store.mutate('put', { key: 'a', value: 1 });
    const iter = await store.query((tx) => tx.scan()[Symbol.asyncIterator]());
    await expect(iter.next()).rejects.toThrow(TransactionClosedError);
  });

  it('refuses work after close', async () => {
    const { store } = await makeTestStore();
    await store.close();
    expect(store.closed).toBe(true);
    await expect(store.mutate('put', { key: 'a', value: 1 })).rejects.toThrow(StoreClosedError);
    await expect(store.query((tx) => tx.get('a'))).rejects.toThrow(StoreClosedError);
    await store.close();
  });

  it('rejects an unknown mutator', async () => {
    const { store } = await makeTestStore();
    await expect(store.mutate('nope')).rejects.toThrow(/Unknown mutator/);
  });

  it('refuses a key with a lone surrogate in a read, delete or scan, as the server does', async () => {
    const { store } = await makeTestStore({ mutators: { del: async (tx: WriteTransaction) => tx.del('k\ud800') } });
    await expect(store.mutate('del')).rejects.toThrow(expect.objectContaining({ kind: 'InvalidKey', message: 'Key "k\\ud800" is not well-formed Unicode (it has a lone surrogate)' }));
    await store.query(async (tx) => {
      await expect(tx.get('\udc00')).rejects.toThrow(InvalidKeyError);
      await expect(tx.has('\udc00')).rejects.toThrow(InvalidKeyError);
      expect(() => tx.scan({ prefix: 'a\ud83d' })).toThrow(/Scan prefix/);
      expect(() => tx.scan({ start: { key: '\ud83d' } })).toThrow(/Scan start key/);
      expect(await tx.get('😀')).toBeUndefined();
    });
  });
});
