import { describe, expect, it } from 'vitest';
import { decodeDownstream } from '../src/protocol';
import { PokeFrames } from './poke-frames';

describe('PokeFrames', () => {
  it('encodes each distinct frame once and hands the same buffer to every receiver of it', () => {
    const frames = new PokeFrames(7, '[{"op":"put","key":"k","value":{"big":"x"}}]', 123, { g1: { c1: 4 } });
    const other = frames.frame(6, 'g2', 'req-a');
    expect(frames.frame(6, 'g3', 'req-a')).toBe(other);
    const own = frames.frame(6, 'g1', 'req-a');
    expect(own).not.toBe(other);
    expect(frames.frame(6, 'g1', 'req-a')).toBe(own);
    expect(frames.frame(5, 'g2', 'req-a')).not.toBe(other);
    expect(decodeDownstream(own.toString())).toEqual([
      'poke',
      { baseCookie: 6, cookie: 7, lastMutationIDChanges: { c1: 4 }, patch: [{ op: 'put', key: 'k', value: { big: 'x' } }], timestamp: 123, requestID: 'req-a' },
    ]);
    expect(decodeDownstream(frames.frame(null, 'g2', '"quoted"').toString())[1]).toMatchObject({ baseCookie: null, lastMutationIDChanges: {}, requestID: '"quoted"' });
  });
});
