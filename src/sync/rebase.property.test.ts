import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestStore } from '../db/test-helpers';
import type { PatchOperation } from '../../protocol/patch';

type Mut = { name: 'put'; args: { key: string; value: number } } | { name: 'del'; args: string } | { name: 'inc'; args: { key: string; by: number } };

function apply(state: Map<string, number>, m: Mut): void {
  switch (m.name) {
    case 'put':
      state.set(m.args.key, m.args.value);
      break;
    case 'del':
      state.delete(m.args);
      break;
    case 'inc':
      state.set(m.args.key, (state.get(m.args.key) ?? 0) + m.args.by);
      break;
  }
}

const key = fc.constantFrom('a', 'b', 'c', 'd');
const mutation: fc.Arbitrary<Mut> = fc.oneof(
  fc.record({ name: fc.constant('put' as const), args: fc.record({ key, value: fc.integer({ min: -5, max: 5 }) }) }),
  fc.record({ name: fc.constant('del' as const), args: key }),
  fc.record({ name: fc.constant('inc' as const), args: fc.record({ key, by: fc.integer({ min: 1, max: 3 }) }) }),
);
type Cmd =
  | { kind: 'local'; m: Mut }
  | { kind: 'server'; ack: number; others: Mut[]; clear: boolean };
const command: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 3, arbitrary: mutation.map((m) => ({ kind: 'local' as const, m })) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('server' as const),
      ack: fc.nat({ max: 4 }),
      others: fc.array(mutation, { maxLength: 3 }),
      clear: fc.boolean(),
    }),
  },
);

describe('rebase (model-based)', () => {
  it('visible state is always server state + pending mutations replayed in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 40 }), async (cmds) => {
        const { store } = await makeTestStore();
        const watched = new Map<string, unknown>();
        store.experimentalWatch((diff) => {
          expect(diff.length).toBeGreaterThan(0);
          for (const d of diff) {
            const k = d.key as string;
            if (d.op === 'del') {
              expect(watched.get(k)).toEqual(d.oldValue);
              watched.delete(k);
            } else {
              if (d.op === 'change') expect(watched.get(k)).toEqual(d.oldValue);
              else expect(watched.has(k)).toBe(false);
              watched.set(k, d.newValue);
            }
          }
        });
        const server = new Map<string, number>();
        let clientKnown = new Map<string, number>();
        let cookie = 0;
        let serverLmid = 0;
        const all: Mut[] = [];
        for (const cmd of cmds) {
          if (cmd.kind === 'local') {
            all.push(cmd.m);
            await store.mutate(cmd.m.name, cmd.m.args);
          } else {
            const target = Math.min(all.length, serverLmid + cmd.ack);
            for (; serverLmid < target; serverLmid++) apply(server, all[serverLmid]!);
            for (const m of cmd.others) apply(server, m);
            const patch: PatchOperation[] = [];
            if (cmd.clear) {
              patch.push({ op: 'clear' });
              for (const [k, v] of server) patch.push({ op: 'put', key: k, value: v });
            } else {
              for (const [k, v] of server) if (clientKnown.get(k) !== v) patch.push({ op: 'put', key: k, value: v });
              for (const k of clientKnown.keys()) if (!server.has(k)) patch.push({ op: 'del', key: k });
            }
            await store.applyServerUpdate({
              baseCookie: cookie === 0 ? null : cookie,
              cookie: cookie + 1,
              lastMutationIDChanges: target > 0 ? { c1: target } : {},
              patch,
            });
            cookie++;
            clientKnown = new Map(server);
          }
          const expected = new Map(clientKnown);
          for (const m of all.slice(serverLmid)) apply(expected, m);
          const visible = await store.query((tx) => tx.scan().entries().toArray());
          expect(visible).toEqual([...expected].sort(([a], [b]) => (a < b ? -1 : 1)));
          expect([...watched].sort(([a], [b]) => (a < b ? -1 : 1))).toEqual(visible);
          const pending = store.pendingMutations();
          expect(pending.map((p) => p.id)).toEqual(all.map((_, i) => i + 1).slice(serverLmid));
          expect(pending.map((p) => p.name)).toEqual(all.slice(serverLmid).map((m) => m.name));
          expect(store.lastMutationID).toBe(serverLmid);
        }
        await store.close();
      }),
      { numRuns: 100 },
    );
  });
});
