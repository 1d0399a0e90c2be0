import { describe, expect, it } from 'vitest';
import { installGlobals } from './global-values';

describe('installGlobals', () => {
  it('sets globals and puts back what was there, removing what was not', () => {
    const global = globalThis as Record<string, unknown>;
    const before = global.setImmediate;
    const restore = installGlobals({ setImmediate: 'replaced', conformanceProbe: 1 });
    expect([global.setImmediate, global.conformanceProbe]).toEqual(['replaced', 1]);
    restore();
    expect(global.setImmediate).toBe(before);
    expect('conformanceProbe' in global).toBe(false);
  });
});
