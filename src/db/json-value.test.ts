import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cloneFrozenJSON, deepEqualJSON, deepFreezeJSON } from './json-value';
import { InvalidJSONValueError } from './errors';

describe('cloneFrozenJSON', () => {
  it('copies and deep-freezes', () => {
    const v = { a: [1, { b: 'x' }], c: null, d: true };
    const c = cloneFrozenJSON('k', v) as { a: [number, { b: string }] };
    expect(c).toEqual(v);
    expect(c).not.toBe(v);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.a[1])).toBe(true);
    v.a.push(2);
    expect(c.a.length).toBe(2);
  });

  const bad: [string, unknown][] = [
    ['undefined', undefined],
    ['function', () => 1],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['class instance', new (class Foo {})()],
    ['Date', new Date(0)],
    ['Map', new Map()],
    ['nested undefined', { a: [1, undefined] }],
    ['bigint', 1n],
  ];
  for (const [name, value] of bad) {
    it(`rejects ${name}, naming the key`, () => {
      expect(() => cloneFrozenJSON('my-key', value)).toThrow(InvalidJSONValueError);
      expect(() => cloneFrozenJSON('my-key', value)).toThrow(/my-key/);
    });
  }

  it('rejects a cycle', () => {
    const o: Record<string, unknown> = {};
    o.self = o;
    expect(() => cloneFrozenJSON('k', o)).toThrow(/cycle/);
  });

  it('keeps a "__proto__" key as data', () => {
    const v = JSON.parse('{"__proto__": {"x": 1}, "a": 2}');
    const c = cloneFrozenJSON('k', v) as Record<string, unknown>;
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
    expect(Object.keys(c)).toEqual(['__proto__', 'a']);
    expect(deepEqualJSON(c as never, v)).toBe(true);
  });

  it('accepts a shared (non-cyclic) sub-object', () => {
    const s = { x: 1 };
    expect(cloneFrozenJSON('k', [s, s])).toEqual([s, s]);
  });

  it('round-trips any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const c = cloneFrozenJSON('k', v);
        expect(deepEqualJSON(c, v as never)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('deepEqualJSON', () => {
  it('agrees with structural equality', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const expected = JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
        expect(deepEqualJSON(a as never, b as never)).toBe(expected);
        expect(deepEqualJSON(a as never, structuredClone(a) as never)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
  it('distinguishes arrays from objects and missing keys', () => {
    expect(deepEqualJSON([], {})).toBe(false);
    expect(deepEqualJSON({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(deepEqualJSON({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
  });
});

describe('deepFreezeJSON', () => {
  it('freezes in place', () => {
    const v = { a: [{ b: 1 }] };
    deepFreezeJSON(v);
    expect(Object.isFrozen(v.a[0])).toBe(true);
  });
});

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return Object.is(v, -0) ? 0 : v;
}
