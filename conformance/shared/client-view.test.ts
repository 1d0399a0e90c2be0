import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PatchOperation, PokeBody } from '../../src/protocol';
import { patchOperation } from '../../src/protocol/testing/arbitraries';
import { ClientView } from './client-view';

const poke = (baseCookie: number | null, cookie: number, patch: PatchOperation[], lastMutationIDChanges: Record<string, number> = {}): PokeBody => ({
  baseCookie,
  cookie,
  patch,
  lastMutationIDChanges,
  requestID: 'r',
});

describe('ClientView', () => {
  it('applies put, del and clear in order and follows the cookie', () => {
    const view = new ClientView();
    view.applyPoke(poke(null, 1, [{ op: 'put', key: 'b', value: 2 }, { op: 'put', key: 'a', value: 1 }]));
    view.applyPoke(poke(1, 2, [{ op: 'del', key: 'b' }]));
    expect(view.snapshot()).toEqual({ a: 1 });
    expect(Object.keys(view.snapshot())).toEqual(['a']);
    view.applyPoke(poke(2, 3, [{ op: 'clear' }, { op: 'put', key: 'c', value: [3] }]));
    expect(view.snapshot()).toEqual({ c: [3] });
    expect(view.cookie).toBe(3);
    expect(view.chainBreaks).toEqual([]);
  });

  it('records a poke that does not follow from its cookie and does not apply it', () => {
    const view = new ClientView(5);
    view.applyPoke(poke(4, 6, [{ op: 'put', key: 'x', value: 1 }]));
    expect(view.chainBreaks).toEqual(['poke #1 has baseCookie 4 but the client\'s cookie was 5 (poke cookie 6)']);
    expect(view.snapshot()).toEqual({});
    expect(view.cookie).toBe(5);
  });

  it('keeps the highest last mutation id per client and every change in order', () => {
    const view = new ClientView();
    view.applyPoke(poke(null, 1, [], { c1: 2 }));
    view.applyPoke(poke(1, 2, [], { c1: 1, c2: 4 }));
    expect(view.lastMutationID('c1')).toBe(2);
    expect(view.lastMutationID('c2')).toBe(4);
    expect(view.lastMutationID('nobody')).toBe(0);
    expect(view.lastMutationIDChanges).toEqual([{ c1: 2 }, { c1: 1, c2: 4 }]);
  });

  it('ends in the same state as a plain map given the same chained patches', () => {
    fc.assert(
      fc.property(fc.array(fc.array(patchOperation, { maxLength: 6 }), { maxLength: 8 }), (patches) => {
        const view = new ClientView();
        const model = new Map<string, unknown>();
        patches.forEach((patch, i) => {
          view.applyPoke(poke(i === 0 ? null : i, i + 1, patch));
          for (const op of patch) {
            if (op.op === 'put') model.set(op.key, op.value);
            else if (op.op === 'del') model.delete(op.key);
            else model.clear();
          }
        });
        expect(view.snapshot()).toEqual(Object.fromEntries(model));
        expect(view.chainBreaks).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});
