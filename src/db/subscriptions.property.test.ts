import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestStore } from './test-helpers';
import type { ReadTransaction } from './transaction-types';

const key = fc.constantFrom('a', 'ab', 'abc', 'b', 'ba', 'c', 'é', '\u{1F600}');
const sec = fc.constantFrom('x', 'xy', 'y', 'z');

type Body = (tx: ReadTransaction) => Promise<unknown>;
const body: fc.Arbitrary<[string, Body]> = fc.oneof(
  key.map((k): [string, Body] => [`get ${k}`, (tx) => tx.get(k)]),
  fc.constant<[string, Body]>(['isEmpty', (tx) => tx.isEmpty()]),
  fc
    .record({
      prefix: fc.option(key, { nil: undefined }),
      start: fc.option(fc.record({ key, exclusive: fc.boolean() }), { nil: undefined }),
      limit: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
    })
    .map((o): [string, Body] => [`scan ${JSON.stringify(o)}`, (tx) => tx.scan(o).entries().toArray()]),
  fc
    .record({
      prefix: fc.option(sec, { nil: undefined }),
      start: fc.option(
        fc.record({ key: fc.oneof(sec, fc.tuple(sec, key)), exclusive: fc.boolean() }),
        { nil: undefined },
      ),
      limit: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
    })
    .map((o): [string, Body] => [
      `index ${JSON.stringify(o)}`,
      (tx) => tx.scan({ ...o, indexName: 'byV' }).entries().toArray(),
    ]),
  fc
    .tuple(key, key)
    .map(([k1, k2]): [string, Body] => [
      `first-of ${k1} ${k2}`,
      async (tx) => {
        for await (const [k] of tx.scan({ start: { key: k1 } }).entries()) if (k >= k2) return k;
        return null;
      },
    ]),
);

type Op =
  | { kind: 'put'; key: string; v: string | null }
  | { kind: 'del'; key: string }
  | { kind: 'server'; puts: [string, string][]; dels: string[] };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), key, v: fc.option(sec, { nil: null }) }),
  fc.record({ kind: fc.constant('del' as const), key }),
  fc.record({
    kind: fc.constant('server' as const),
    puts: fc.array(fc.tuple(key, sec), { maxLength: 3 }),
    dels: fc.array(key, { maxLength: 2 }),
  }),
);

describe('subscriptions (property)', () => {
  it('every subscription always holds what a fresh query of its body returns', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(body, { minLength: 1, maxLength: 6 }), fc.array(op, { maxLength: 15 }), async (bodies, ops) => {
        const { store } = await makeTestStore({ indexes: { byV: { jsonPointer: '/v', allowEmpty: true } } });
        const latest = bodies.map(() => ({ value: undefined as unknown, calls: 0 }));
        bodies.forEach(([, b], i) =>
          store.subscribe(b, {
            onData: (d) => {
              latest[i]!.value = d;
              latest[i]!.calls++;
            },
          }),
        );
        let cookie = 0;
        for (const o of ops) {
          if (o.kind === 'put') await store.mutate('put', { key: o.key, value: { v: o.v } });
          else if (o.kind === 'del') await store.mutate('del', o.key);
          else {
            await store.applyServerUpdate({
              baseCookie: cookie === 0 ? null : cookie,
              cookie: cookie + 1,
              lastMutationIDChanges: {},
              patch: [
                ...o.puts.map(([k, v]) => ({ op: 'put' as const, key: k, value: { v } })),
                ...o.dels.map((k) => ({ op: 'del' as const, key: k })),
              ],
            });
            cookie++;
          }
          for (let i = 0; i < bodies.length; i++) {
            const fresh = await store.query(bodies[i]![1]);
            expect(latest[i]!.calls, bodies[i]![0]).toBeGreaterThan(0);
            expect(latest[i]!.value, bodies[i]![0]).toEqual(fresh);
          }
        }
        await store.close();
      }),
      { numRuns: 80 },
    );
  });
});
