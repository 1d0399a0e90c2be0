import { describe, expect, it } from 'vitest';
import { MutationIDGapError } from './errors';
import { makeTestStore } from './test-helpers';

describe('replayMutation', () => {
  it('applies logged mutations the state lacks, with their own client, id and timestamp', async () => {
    const { store: first } = await makeTestStore();
    await first.mutate('put', { key: 'a', value: 1 });
    await first.mutate('inc', { key: 'a', by: 2 });
    const log = first.pendingMutations();

    let pushes = 0;
    const { store } = await makeTestStore({ clientID: 'c2', onLocalMutation: () => pushes++ });
    const data: unknown[] = [];
    store.subscribe((tx) => tx.get('a'), { onData: (d) => data.push(d) });
    for (const m of log) expect(await store.replayMutation(m)).toBe(true);
    expect(await store.query((tx) => tx.get('a'))).toBe(3);
    expect(store.pendingMutations()).toEqual(log);
    expect(store.lastKnownMutationID('c1')).toBe(2);
    expect(pushes).toBe(2);
    expect(data[data.length - 1]).toBe(3);

    expect(await store.replayMutation(log[0]!)).toBe(false);
    await expect(store.replayMutation({ ...log[0]!, id: 4 })).rejects.toThrow(MutationIDGapError);

    await store.mutate('put', { key: 'b', value: 1 });
    expect(store.pendingMutations().map((m) => [m.clientID, m.id])).toEqual([
      ['c1', 1],
      ['c1', 2],
      ['c2', 1],
    ]);
  });

  it('skips what the server acknowledged, and keeps ids of this client contiguous', async () => {
    const { store } = await makeTestStore();
    await store.applyServerUpdate({ baseCookie: null, cookie: 1, lastMutationIDChanges: { c1: 3 }, patch: [] });
    expect(store.lastKnownMutationID('c1')).toBe(3);
    const m = { id: 3, clientID: 'c1', name: 'put', args: { key: 'x', value: 1 }, timestamp: 5 };
    expect(await store.replayMutation(m)).toBe(false);
    expect(await store.replayMutation({ ...m, id: 4 })).toBe(true);
    await store.mutate('put', { key: 'y', value: 1 });
    expect(store.pendingMutations().map((p) => p.id)).toEqual([4, 5]);
  });

  it('a mutator missing at replay is logged; the mutation stays pending', async () => {
    const { store, logger } = await makeTestStore();
    const m = { id: 1, clientID: 'c1', name: 'gone', args: null, timestamp: 5 };
    expect(await store.replayMutation(m)).toBe(true);
    expect(logger.errors.some((e) => e.includes('no mutator named gone'))).toBe(true);
    expect(store.pendingMutations()).toEqual([m]);
  });
});
