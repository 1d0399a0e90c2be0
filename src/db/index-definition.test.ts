import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileIndex, indexKeysFor } from './index-definition';
import { decodeIndexKey, encodeIndexKey } from './index-key';
import { IndexKeyNullByteError } from './errors';
import { utf8Compare } from './test-compare';

describe('index key encoding', () => {
  it('sorts like (secondary, primary)', () => {
    const noNul = fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000'));
    fc.assert(
      fc.property(noNul, fc.string({ unit: 'grapheme' }), noNul, fc.string({ unit: 'grapheme' }), (s1, p1, s2, p2) => {
        const byParts = utf8Compare(s1, s2) || utf8Compare(p1, p2);
        const byEncoding = utf8Compare(encodeIndexKey(s1, p1), encodeIndexKey(s2, p2));
        expect(Math.sign(byEncoding)).toBe(Math.sign(byParts));
        expect(decodeIndexKey(encodeIndexKey(s1, p1))).toEqual([s1, p1]);
      }),
      { numRuns: 500 },
    );
  });
});

describe('indexKeysFor', () => {
  const ix = compileIndex('byName', { jsonPointer: '/name', prefix: 'u/' });
  it('indexes a string at the pointer', () => {
    expect(indexKeysFor(ix, 'u/1', { name: 'ann' })).toEqual([encodeIndexKey('ann', 'u/1')]);
  });
  it('ignores keys outside the prefix', () => {
    expect(indexKeysFor(ix, 'x/1', { name: 'ann' })).toEqual([]);
  });
  it('indexes every string element of an array', () => {
    const tags = compileIndex('tags', { jsonPointer: '/tags' });
    expect(indexKeysFor(tags, 'k', { tags: ['a', 'b'] })).toEqual([encodeIndexKey('a', 'k'), encodeIndexKey('b', 'k')]);
  });
  it('skips a missing value: reported unless allowEmpty', () => {
    const skipped: string[] = [];
    const onSkip = (_: unknown, key: string) => skipped.push(key);
    expect(indexKeysFor(ix, 'u/1', { other: 1 }, onSkip)).toEqual([]);
    expect(skipped).toEqual(['u/1']);
    const lax = compileIndex('lax', { jsonPointer: '/name', allowEmpty: true });
    expect(indexKeysFor(lax, 'u/2', { other: 1 }, onSkip)).toEqual([]);
    expect(skipped).toEqual(['u/1']);
  });
  it('rejects a secondary key with a null byte', () => {
    expect(() => indexKeysFor(ix, 'u/1', { name: 'a\u0000b' })).toThrow(IndexKeyNullByteError);
    expect(() => indexKeysFor(ix, 'u/1', { name: 'a\u0000b' })).toThrow(
      'Secondary index keys cannot contain a null byte',
    );
  });
  it('follows escaped pointer tokens and array indexes', () => {
    const deep = compileIndex('d', { jsonPointer: '/a~1b/0/c~0' });
    expect(indexKeysFor(deep, 'k', { 'a/b': [{ 'c~': 'v' }] })).toEqual([encodeIndexKey('v', 'k')]);
  });
});
