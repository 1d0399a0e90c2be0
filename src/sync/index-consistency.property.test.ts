import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestStore } from '../db/test-helpers';
import type { PatchOperation } from '../../protocol/patch';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { compareUTF8 } from '../btree/compare';

const key = fc.constantFrom('t/a', 't/b', 't/c', 'u/a', 'x');
const tags = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('red', 'blue', 're'),
  fc.array(fc.constantFrom('red', 'blue', 'green'), { maxLength: 3 }),
);
const value = tags.map((t): ReadonlyJSONValue => (t === undefined ? { n: 1 } : { tag: t }));
type Op =
  | { kind: 'put'; key: string; value: ReadonlyJSONValue }
  | { kind: 'del'; key: string }
  | { kind: 'server'; ops: PatchOperation[]; ack: boolean };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), key, value }),
  fc.record({ kind: fc.constant('del' as const), key }),
  fc.record({
    kind: fc.constant('server' as const),
    ack: fc.boolean(),
    ops: fc.array(
      fc.oneof<fc.Arbitrary<PatchOperation>[]>(
        fc.record({ op: fc.constant('put' as const), key, value }),
        fc.record({ op: fc.constant('del' as const), key }),
        fc.constant({ op: 'clear' as const }),
      ),
      { maxLength: 4 },
    ),
  }),
);

function expectedIndex(entries: (readonly [string, unknown])[], prefix: string): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of entries) {
    if (!k.startsWith(prefix)) continue;
    const t = (v as { tag?: unknown }).tag;
    const secondaries = typeof t === 'string' ? [t] : Array.isArray(t) ? [...new Set(t as string[])] : [];
    for (const s of secondaries) out.push([s, k]);
  }
  return out.sort((a, b) => compareUTF8(a[0], b[0]) || compareUTF8(a[1], b[1]));
}

describe('indexes (property)', () => {
  it('always match the primary map, through local writes, rebases and clears', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 20 }), async (ops) => {
        const { store } = await makeTestStore({
          indexes: { byTag: { jsonPointer: '/tag', allowEmpty: true }, tOnly: { jsonPointer: '/tag', prefix: 't/', allowEmpty: true } },
        });
        let cookie = 0;
        let acked = 0;
        let made = 0;
        for (const o of ops) {
          if (o.kind === 'put') {
            await store.mutate('put', { key: o.key, value: o.value });
            made++;
          } else if (o.kind === 'del') {
            await store.mutate('del', o.key);
            made++;
          } else {
            if (o.ack) acked = made;
            await store.applyServerUpdate({
              baseCookie: cookie === 0 ? null : cookie,
              cookie: cookie + 1,
              lastMutationIDChanges: acked > 0 ? { c1: acked } : {},
              patch: o.ops,
            });
            cookie++;
          }
          const entries = await store.query((tx) => tx.scan().entries().toArray());
          expect(await store.query((tx) => tx.scan({ indexName: 'byTag' }).keys().toArray())).toEqual(
            expectedIndex(entries, ''),
          );
          expect(await store.query((tx) => tx.scan({ indexName: 'tOnly' }).keys().toArray())).toEqual(
            expectedIndex(entries, 't/'),
          );
        }
        await store.close();
      }),
      { numRuns: 80 },
    );
  });
});
