import { describe, expect, it } from 'vitest';
import { FRAME_ENVELOPE_DEPTH, MAX_JSON_VALUE_DEPTH } from '../../protocol/constants';
import { decodeDownstream } from './codec';
import { decodeUpstream } from './server-codec';
import { findJSONLimitViolation, isWellFormedText, MAX_WALKABLE_DEPTH } from './json-limits';

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { k: v };
  return v;
}

const push = (args: unknown) =>
  JSON.stringify(['push', { timestamp: 1, clientGroupID: 'g', mutations: [{ id: 1, clientID: 'c', name: 'put', args, timestamp: 1 }], pushVersion: 1, schemaVersion: '1', requestID: 'r' }]);

describe('JSON limits', () => {
  it('accepts values up to the maximum depth and refuses deeper ones, however deep (the walk stops at the limit)', () => {
    expect(findJSONLimitViolation(nested(MAX_JSON_VALUE_DEPTH))).toBeUndefined();
    expect(findJSONLimitViolation(nested(MAX_JSON_VALUE_DEPTH + 1))?.problem).toBe(`a value nested deeper than ${MAX_JSON_VALUE_DEPTH} levels`);
    // Far deeper than a walk that did not stop at the limit could go.
    expect(findJSONLimitViolation(JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)))).toBeDefined();
  });

  it('points at the value that nests too deep, counting the envelope, and reports the first problem in document order', () => {
    expect(findJSONLimitViolation({ a: [[1]] }, 2)).toEqual({ path: '/a/0', problem: 'a value nested deeper than 2 levels' });
    expect(findJSONLimitViolation({ a: [[1]] }, 3)).toBeUndefined();
    expect(findJSONLimitViolation([[{ b: [] }]], 2, 1)).toEqual({ path: '/0/0/b', problem: 'a value nested deeper than 2 levels' });
    expect(findJSONLimitViolation({ x: '\ud800', y: [[[]]] }, 2)?.path).toBe('/x');
    expect(findJSONLimitViolation({ y: [[[]]], x: '\ud800' }, 2)?.path).toBe('/y/0');
  });

  it('finds lone surrogates in strings and keys, with the path', () => {
    expect(isWellFormedText('a😀b')).toBe(true);
    expect(isWellFormedText('a\ud800b')).toBe(false);
    expect(isWellFormedText('\udc00')).toBe(false);
    expect(findJSONLimitViolation({ a: [1, 'x\ud83d'] })).toEqual({ path: '/a/1', problem: 'a string that is not well-formed Unicode (a lone surrogate)' });
    expect(findJSONLimitViolation({ a: { 'k\udfff': 1 } })).toEqual({ path: '/a', problem: 'a key that is not well-formed Unicode (a lone surrogate)' });
    expect(findJSONLimitViolation({ 'a/b~': ['\ud800'] })?.path).toBe('/a~1b~0/0');
  });

  it('refuses a limit too deep to walk with a RangeError instead of overflowing the stack', () => {
    const deep = JSON.parse('['.repeat(20_000) + ']'.repeat(20_000));
    expect(findJSONLimitViolation(nested(MAX_WALKABLE_DEPTH + 5), MAX_WALKABLE_DEPTH - 4, 4)?.problem).toBe(`a value nested deeper than ${MAX_WALKABLE_DEPTH - 4} levels`);
    for (const limit of [MAX_WALKABLE_DEPTH + 1, 100_000, Infinity, Number.NaN, '5', null]) expect(() => findJSONLimitViolation(deep, limit as number)).toThrow(RangeError);
    expect(() => findJSONLimitViolation(deep, MAX_WALKABLE_DEPTH - 4, 5)).toThrow(`not a JSON depth limit: ${MAX_WALKABLE_DEPTH - 4} + 5 (numbers, ${MAX_WALKABLE_DEPTH} at most in all)`);
  });

  it('keeps "__proto__" keys as data', () => {
    expect(findJSONLimitViolation(JSON.parse('{"__proto__":{"x":"\\ud800"}}'))?.path).toBe('/__proto__/x');
  });

  it('decode refuses too-deep args and lone surrogates with InvalidMessage, upstream and downstream', () => {
    expect(() => decodeUpstream(push(nested(MAX_JSON_VALUE_DEPTH)))).not.toThrow();
    expect(() => decodeUpstream(push(nested(MAX_JSON_VALUE_DEPTH + 1)))).toThrow(
      expect.objectContaining({ kind: 'InvalidMessage', message: expect.stringContaining(`nested deeper than ${MAX_JSON_VALUE_DEPTH} levels`) }),
    );
    expect(() => decodeUpstream(push({ key: '\ud800' }))).toThrow(expect.objectContaining({ path: '/1/mutations/0/args/key' }));
    const poke = (value: unknown) => JSON.stringify(['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'k', value }], requestID: 'r' }]);
    expect(() => decodeDownstream(poke(nested(MAX_JSON_VALUE_DEPTH)))).not.toThrow();
    expect(() => decodeDownstream(poke(nested(MAX_JSON_VALUE_DEPTH + 1)))).toThrow(expect.objectContaining({ kind: 'InvalidMessage' }));
    expect(() => decodeDownstream(JSON.stringify(['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [{ op: 'del', key: '\udc00' }], requestID: 'r' }]))).toThrow(
      expect.objectContaining({ path: '/1/patch/0/key' }),
    );
    expect(FRAME_ENVELOPE_DEPTH).toBe(4);
  });
});
