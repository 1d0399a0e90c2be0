import { describe, expect, it } from 'vitest';
import { MAX_ID_BYTES, MAX_KEY_BYTES, storedTextProblem } from './stored-text';

describe('storedTextProblem', () => {
  it('accepts any well-formed text within the limit, astral characters included', () => {
    expect(storedTextProblem('room/😀/é', MAX_ID_BYTES)).toBeUndefined();
    expect(storedTextProblem('k'.repeat(MAX_KEY_BYTES), MAX_KEY_BYTES)).toBeUndefined();
  });

  it('refuses U+0000, lone surrogates and text over the limit, saying which', () => {
    expect(storedTextProblem('a\u0000b', MAX_KEY_BYTES)).toBe('it contains U+0000');
    expect(storedTextProblem('a\uD800', MAX_KEY_BYTES)).toMatch(/lone surrogate/);
    expect(storedTextProblem('é'.repeat(MAX_ID_BYTES / 2 + 1), MAX_ID_BYTES)).toBe(`it is ${MAX_ID_BYTES + 2} bytes long in UTF-8, over the limit of ${MAX_ID_BYTES}`);
  });
});
