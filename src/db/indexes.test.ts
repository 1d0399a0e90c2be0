import { describe, expect, it } from 'vitest';
import { makeTestStore } from './test-helpers';
import { IndexKeyNullByteError } from './errors';

const indexes = {
  byName: { jsonPointer: '/name', prefix: 'u/' },
  byTag: { jsonPointer: '/tags', allowEmpty: true },
};

describe('secondary indexes', () => {
  it('scans by index name with secondary and primary start keys', async () => {
    const { store } = await makeTestStore({ indexes });
    const users = { 'u/1': 'bob', 'u/2': 'ann', 'u/3': 'bob', 'u/4': 'cy', 'u/5': 'bobby' };
    for (const [key, name] of Object.entries(users)) await store.mutate('put', { key, value: { name } });
    await store.query(async (tx) => {
      const keys = (o: Parameters<typeof tx.scan>[0] & { indexName: string }) => tx.scan(o).keys().toArray();
      expect(await keys({ indexName: 'byName' })).toEqual([
        ['ann', 'u/2'],
        ['bob', 'u/1'],
        ['bob', 'u/3'],
        ['bobby', 'u/5'],
        ['cy', 'u/4'],
      ]);
      expect(await keys({ indexName: 'byName', prefix: 'bob' })).toEqual([
        ['bob', 'u/1'],
        ['bob', 'u/3'],
        ['bobby', 'u/5'],
      ]);
      expect(await keys({ indexName: 'byName', start: { key: ['bob', 'u/3'] } })).toEqual([
        ['bob', 'u/3'],
        ['bobby', 'u/5'],
        ['cy', 'u/4'],
      ]);
      expect(await keys({ indexName: 'byName', start: { key: ['bob', 'u/1'], exclusive: true }, limit: 1 })).toEqual([
        ['bob', 'u/3'],
      ]);
      expect(await keys({ indexName: 'byName', start: { key: 'bob', exclusive: true } })).toEqual([
        ['bobby', 'u/5'],
        ['cy', 'u/4'],
      ]);
      expect(await keys({ indexName: 'byName', start: { key: ['bob'] } })).toEqual([
        ['bob', 'u/1'],
        ['bob', 'u/3'],
        ['bobby', 'u/5'],
        ['cy', 'u/4'],
      ]);
      expect(await tx.scan({ indexName: 'byName', prefix: 'c' }).entries().toArray()).toEqual([
        [['cy', 'u/4'], { name: 'cy' }],
      ]);
    });
  });

  it('keeps index entries in step with puts and deletes', async () => {
    const { store } = await makeTestStore({ indexes });
    await store.mutate('put', { key: 'u/1', value: { name: 'a' } });
    await store.mutate('put', { key: 'u/1', value: { name: 'b' } });
    await store.mutate('put', { key: 'u/2', value: { name: 'c' } });
    await store.mutate('del', 'u/2');
    expect(await store.query((tx) => tx.scan({ indexName: 'byName' }).keys().toArray())).toEqual([['b', 'u/1']]);
  });

  it('indexes every element of an array', async () => {
    const { store } = await makeTestStore({ indexes });
    await store.mutate('put', { key: 'p', value: { tags: ['x', 'y'] } });
    await store.mutate('put', { key: 'q', value: { tags: ['y'] } });
    expect(await store.query((tx) => tx.scan({ indexName: 'byTag' }).keys().toArray())).toEqual([
      ['x', 'p'],
      ['y', 'p'],
      ['y', 'q'],
    ]);
    await store.mutate('put', { key: 'p', value: { tags: ['z'] } });
    expect(await store.query((tx) => tx.scan({ indexName: 'byTag' }).keys().toArray())).toEqual([
      ['y', 'q'],
      ['z', 'p'],
    ]);
  });

  it('skips values without a secondary key: silently with allowEmpty, with a warning otherwise', async () => {
    const { store, logger } = await makeTestStore({ indexes });
    await store.mutate('put', { key: 'no-tags', value: { other: 1 } });
    expect(logger.warnings).toEqual([]);
    await store.mutate('put', { key: 'u/9', value: { other: 1 } });
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toContain('u/9');
    expect(await store.query((tx) => tx.get('u/9'))).toEqual({ other: 1 });
    expect(await store.query((tx) => tx.scan({ indexName: 'byName' }).toArray())).toEqual([]);
  });

  it('rejects a secondary key with a null byte and keeps nothing of that mutation', async () => {
    const { store } = await makeTestStore({ indexes });
    const err = await store.mutate('put', { key: 'u/1', value: { name: 'a\u0000b' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IndexKeyNullByteError);
    expect((err as Error).message).toBe('Secondary index keys cannot contain a null byte');
    expect(await store.query((tx) => tx.isEmpty())).toBe(true);
  });

  it('an unknown index name is an error', async () => {
    const { store } = await makeTestStore({ indexes });
    await expect(store.query((tx) => tx.scan({ indexName: 'nope' }).toArray())).rejects.toThrow(/Unknown index/);
  });

  it('rebase updates indexes', async () => {
    const { store } = await makeTestStore({ indexes });
    await store.mutate('put', { key: 'u/1', value: { name: 'local' } });
    await store.applyServerUpdate({
      baseCookie: null,
      cookie: 1,
      lastMutationIDChanges: {},
      patch: [
        { op: 'put', key: 'u/2', value: { name: 'server' } },
        { op: 'put', key: 'u/1', value: { name: 'old-server' } },
      ],
    });
    expect(await store.query((tx) => tx.scan({ indexName: 'byName' }).keys().toArray())).toEqual([
      ['local', 'u/1'],
      ['server', 'u/2'],
    ]);
    await store.applyServerUpdate({
      baseCookie: 1,
      cookie: 2,
      lastMutationIDChanges: { c1: 1 },
      patch: [{ op: 'put', key: 'u/1', value: { name: 'final' } }, { op: 'del', key: 'u/2' }],
    });
    expect(await store.query((tx) => tx.scan({ indexName: 'byName' }).keys().toArray())).toEqual([['final', 'u/1']]);
    await store.applyServerUpdate({ baseCookie: 2, cookie: 3, lastMutationIDChanges: {}, patch: [{ op: 'clear' }] });
    expect(await store.query((tx) => tx.scan({ indexName: 'byName' }).keys().toArray())).toEqual([]);
  });

  it('a server value with a null byte in its secondary key is stored but not indexed', async () => {
    const { store, logger } = await makeTestStore({ indexes });
    await store.applyServerUpdate({
      baseCookie: null,
      cookie: 1,
      lastMutationIDChanges: {},
      patch: [{ op: 'put', key: 'u/1', value: { name: 'x\u0000' } }],
    });
    expect(await store.query((tx) => tx.get('u/1'))).toEqual({ name: 'x\u0000' });
    expect(await store.query((tx) => tx.scan({ indexName: 'byName' }).toArray())).toEqual([]);
    expect(logger.errors).toHaveLength(1);
  });
});
