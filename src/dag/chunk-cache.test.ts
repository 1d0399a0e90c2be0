import { describe, expect, it } from 'vitest';
import { ChunkCache } from './chunk-cache';
import type { Chunk } from './types';

const chunk = (hash: string, size: number): Chunk => ({ hash, data: size, refs: [] });
const sizes = () => {
  const sized: string[] = [];
  return { sized, sizeOf: (c: Chunk) => (sized.push(c.hash), c.data as number) };
};

/** The chunks a cache keeps, least recently used first (has() does not touch the order). */
const kept = (cache: ChunkCache, hashes: string[]) => hashes.filter((h) => cache.has(h));

describe('ChunkCache', () => {
  it('serves chunks put unsized at once and sizes them only when its bytes, its size or another put need them', () => {
    const cache = new ChunkCache(100);
    const { sized, sizeOf } = sizes();
    cache.putUnsized(chunk('a', 30), sizeOf);
    cache.putUnsized(chunk('b', 40), sizeOf);
    expect(cache.get('a')?.data).toBe(30);
    expect(sized).toEqual([]);
    expect(cache.bytes).toBe(70);
    expect(sized).toEqual(['a', 'b']);
    expect(cache.size).toBe(2);
    expect(sized).toEqual(['a', 'b']);
    cache.putUnsized(chunk('c', 10), sizeOf);
    cache.put(chunk('d', 5), 5);
    expect(sized).toEqual(['a', 'b', 'c']);
    expect(cache.bytes).toBe(85);
  });

  it('keeps and counts what sizing each chunk as it is put would: the least recently used evicted first, one bigger than the cap dropped, a chunk put again counted once', () => {
    const steps: [string, number, boolean][] = [
      ['a', 30, true],
      ['b', 40, false],
      ['a', 30, false],
      ['big', 500, true],
      ['c', 50, true],
      ['d', 25, false],
    ];
    const all = ['a', 'b', 'big', 'c', 'd', 'e'];
    const eager = new ChunkCache(100);
    const lazy = new ChunkCache(100);
    const { sizeOf } = sizes();
    for (const [hash, size, unsized] of steps) {
      eager.put(chunk(hash, size), size);
      if (unsized) lazy.putUnsized(chunk(hash, size), sizeOf);
      else lazy.put(chunk(hash, size), size);
    }
    expect(lazy.bytes).toBe(eager.bytes);
    expect(kept(lazy, all)).toEqual(kept(eager, all));
    for (const cache of [eager, lazy]) cache.put(chunk('e', 40), 40);
    expect(lazy.bytes).toBe(eager.bytes);
    expect(kept(lazy, all)).toEqual(kept(eager, all));
    expect(kept(lazy, all)).toEqual(['d', 'e']);
  });

  it('a chunk put unsized and deleted or cleared before it was sized is never sized and counts nothing', () => {
    const cache = new ChunkCache(100);
    const { sized, sizeOf } = sizes();
    cache.putUnsized(chunk('a', 30), sizeOf);
    cache.putUnsized(chunk('b', 40), sizeOf);
    cache.delete('a');
    expect(cache.bytes).toBe(40);
    cache.putUnsized(chunk('c', 10), sizeOf);
    cache.clear();
    expect(cache.bytes).toBe(0);
    expect(sized).toEqual(['b']);
  });
});
