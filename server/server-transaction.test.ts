import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BatchWriter } from './batch-writer';
import { compareKeys } from './key-order';
import { entryOf, RoomData } from './room-data';
import { RoomPacer, ThreadPace } from './engine/pacer';
import { ServerTransaction } from './server-transaction';

function setup(initial: Record<string, unknown> = {}) {
  const data = new RoomData(1);
  for (const [k, v] of Object.entries(initial)) data.setEntry(k, entryOf(v as never, 1));
  const batch = new BatchWriter(data, 2);
  const tx = new ServerTransaction('c1', 1, batch);
  return { data, batch, tx };
}

describe('ServerTransaction', () => {
  it('reads, writes and deletes', async () => {
    const { tx } = setup({ a: 1 });
    expect(tx.reason).toBe('authoritative');
    expect(await tx.get('a')).toBe(1);
    expect(await tx.has('b')).toBe(false);
    await tx.put('b', { n: [1] });
    expect(await tx.get('b')).toEqual({ n: [1] });
    expect(await tx.del('a')).toBe(true);
    expect(await tx.del('a')).toBe(false);
    expect(await tx.has('a')).toBe(false);
    expect(await tx.isEmpty()).toBe(false);
    await tx.del('b');
    expect(await tx.isEmpty()).toBe(true);
  });

  it('stores a frozen copy and refuses non-JSON values', async () => {
    const { tx } = setup();
    const value = { list: [1, 2] };
    await tx.put('k', value);
    value.list.push(3);
    expect(await tx.get('k')).toEqual({ list: [1, 2] });
    expect(Object.isFrozen(await tx.get('k'))).toBe(true);
    await expect(tx.put('x', { f: () => 1 } as never)).rejects.toMatchObject({ kind: 'NotJSON' });
    await expect(tx.put('x', NaN)).rejects.toMatchObject({ kind: 'NotJSON' });
    await expect(tx.put('x', new Date() as never)).rejects.toMatchObject({ kind: 'NotJSON' });
  });

  it('checks every key it is given, a key read before and written after too', async () => {
    const { tx } = setup({ a: 1 });
    await expect(tx.get(undefined as never)).rejects.toBeInstanceOf(TypeError);
    await expect(tx.has(undefined as never)).rejects.toBeInstanceOf(TypeError);
    const long = 'k'.repeat(3000);
    await expect(tx.get(long)).rejects.toMatchObject({ kind: 'InvalidKey' });
    await expect(tx.put(long, 1)).rejects.toMatchObject({ kind: 'InvalidKey' });
    expect(await tx.get('a')).toBe(1);
    await expect(tx.put('a\u0000', 2)).rejects.toMatchObject({ kind: 'InvalidKey' });
    await expect(tx.put('\uD800', 2)).rejects.toMatchObject({ kind: 'InvalidKey' });
    await expect(tx.del(1 as never)).rejects.toBeInstanceOf(TypeError);
    await tx.put('a', 2);
    expect(await tx.get('a')).toBe(2);
  });

  it("at the end of a slice, a mutator's unawaited reads and writes land in call order, and a put stores its value as it was at the call", async () => {
    const data = new RoomData(1);
    const deferred: (() => void)[] = [];
    let now = 0;
    const thread = new ThreadPace({ now: () => now, defer: (resume) => void deferred.push(resume) }, { sliceMs: 10, roomBudgetMs: 1000, windowMs: 1000 });
    const pacer = new RoomPacer(thread);
    const tx = new ServerTransaction('c1', 1, new BatchWriter(data, 2), undefined, () => pacer.check());
    pacer.begin();
    now = 10;
    const value = { n: 1 };
    const ops = [tx.put('a', 1), tx.put('a', 2), tx.get('a'), tx.put('b', value)];
    value.n = 2;
    const read = ops[2] as Promise<unknown>;
    while (deferred.length > 0) deferred.shift()!();
    await Promise.all(ops);
    expect(await read).toBe(2);
    expect(await tx.get('a')).toBe(2);
    expect(await tx.get('b')).toEqual({ n: 1 });
  });

  it('throws "Transaction is closed" after the mutation ended', async () => {
    const { tx } = setup({ a: 1 });
    const scan = tx.scan();
    tx.close();
    await expect(tx.get('a')).rejects.toThrow('Transaction is closed');
    await expect(tx.put('a', 2)).rejects.toThrow('Transaction is closed');
    await expect(scan.toArray()).rejects.toThrow('Transaction is closed');
    expect(() => tx.scan()).toThrow('Transaction is closed');
  });

  it('refuses index scans with a clear error', () => {
    const { tx } = setup();
    expect(() => tx.scan({ indexName: 'byTitle' })).toThrow(/indexName "byTitle" is not supported on the server/);
  });

  it('scans with prefix, start, exclusive and limit in UTF-8 order', async () => {
    const { tx } = setup({ 'a/1': 1, 'a/2': 2, 'a/3': 3, b: 4, '\uE000': 5, '\u{1F600}': 6 });
    expect(await tx.scan({ prefix: 'a/' }).keys().toArray()).toEqual(['a/1', 'a/2', 'a/3']);
    expect(await tx.scan({ prefix: 'a/', start: { key: 'a/2', exclusive: true } }).toArray()).toEqual([3]);
    expect(await tx.scan({ start: { key: 'a/2' }, limit: 2 }).entries().toArray()).toEqual([
      ['a/2', 2],
      ['a/3', 3],
    ]);
    expect(await tx.scan({ prefix: 'a/', start: { key: 'a', exclusive: true } }).keys().toArray()).toHaveLength(3);
    expect(await tx.scan({ start: { key: 'b', exclusive: true } }).keys().toArray()).toEqual(['\uE000', '\u{1F600}']);
    const seen: unknown[] = [];
    for await (const v of tx.scan({ prefix: 'a/', limit: 2 })) seen.push(v);
    expect(seen).toEqual([1, 2]);
  });

  it('sees its own writes during a scan', async () => {
    const { tx } = setup({ a: 1, c: 3 });
    const out: string[] = [];
    for await (const k of tx.scan().keys()) {
      out.push(k);
      if (k === 'a') await tx.put('b', 2);
    }
    expect(out).toEqual(['a', 'b', 'c']);
  });

  it('matches a model map under random writes (property)', async () => {
    const key = fc.constantFrom('a', 'ab', 'b', 'b/1', '\uFFFD', '\u{10000}', '');
    const op = fc.oneof(
      fc.record({ t: fc.constant('put' as const), key, value: fc.integer() }),
      fc.record({ t: fc.constant('del' as const), key }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), key, async (ops, prefix) => {
        const { tx } = setup();
        const model = new Map<string, number>();
        for (const o of ops) {
          if (o.t === 'put') {
            await tx.put(o.key, o.value);
            model.set(o.key, o.value);
          } else {
            expect(await tx.del(o.key)).toBe(model.delete(o.key));
          }
        }
        const expected = [...model].filter(([k]) => k.startsWith(prefix)).sort(([x], [y]) => compareKeys(x, y));
        expect(await tx.scan({ prefix }).entries().toArray()).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});

describe('BatchWriter', () => {
  it('rolls back a failed mutation and reports the batch patch', async () => {
    const { data, batch, tx } = setup({ keep: 1, gone: 2 });
    await tx.put('new', 1);
    await tx.del('gone');
    batch.endMutation();
    await tx.put('keep', 99);
    await tx.put('tmp', 1);
    batch.rollbackMutation();
    await tx.put('ephemeral', 1);
    await tx.del('ephemeral');
    batch.endMutation();
    const { entries, patchJSON } = batch.finish();
    expect(JSON.parse(patchJSON)).toEqual([
      { op: 'del', key: 'gone' },
      { op: 'put', key: 'new', value: 1 },
    ]);
    expect(entries).toEqual([
      { key: 'gone', json: undefined, version: 2 },
      { key: 'new', json: '1', version: 2 },
    ]);
    expect(data.get('keep')).toBe(1);
    expect(data.getEntry('ephemeral')).toBeUndefined();
    expect(data.getEntry('tmp')).toBeUndefined();
  });

  it('rolls back a whole batch', async () => {
    const { data, batch, tx } = setup({ a: 1 });
    await tx.put('a', 2);
    await tx.put('b', 2);
    batch.endMutation();
    batch.rollbackBatch();
    expect([...data.all()]).toEqual([['a', { value: 1, json: '1', version: 1 }]]);
  });
});
