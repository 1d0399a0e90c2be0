import { describe, expect, it } from 'vitest';
import { MAX_JSON_VALUE_DEPTH } from '../../protocol/constants';
import { cloneFrozenJSON } from './json-value';

function nested(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

describe('cloneFrozenJSON refuses at mutate time what the protocol refuses', () => {
  it('nesting deeper than MAX_JSON_VALUE_DEPTH', () => {
    expect(() => cloneFrozenJSON('k', nested(MAX_JSON_VALUE_DEPTH))).not.toThrow();
    expect(() => cloneFrozenJSON('k', nested(MAX_JSON_VALUE_DEPTH + 1))).toThrow(
      expect.objectContaining({ kind: 'InvalidJSONValue', message: expect.stringContaining(`nested deeper than ${MAX_JSON_VALUE_DEPTH} levels`) }),
    );
    expect(() => cloneFrozenJSON('k', nested(5000))).toThrow(expect.objectContaining({ kind: 'InvalidJSONValue' }));
  });

  it('lone surrogates in keys, strings and object keys', () => {
    expect(() => cloneFrozenJSON('k\ud800', 1)).toThrow(expect.objectContaining({ kind: 'InvalidJSONValue', message: expect.stringContaining('not well-formed Unicode') }));
    expect(() => cloneFrozenJSON('k', { a: ['\udc00'] })).toThrow(expect.objectContaining({ path: '/a/0' }));
    expect(() => cloneFrozenJSON('k', { ['x\ud83d']: 1 })).toThrow(expect.objectContaining({ kind: 'InvalidJSONValue' }));
    expect(cloneFrozenJSON('k😀', { 'é😀': '😀' })).toEqual({ 'é😀': '😀' });
  });
});
