import { afterEach, describe, expect, it } from 'vitest';
import { createStore, type Store } from '../db/store';
import type { WriteTransaction } from '../db/transaction-types';
import { MemoryStore } from '../kv/memory-store';
import { DurableMutations, MAX_LOG_ENTRIES_BEFORE_CHECKPOINT } from './durable-mutations';
import { MutationLog } from './mutation-log';

const mutators = {
  async put(tx: WriteTransaction, { key, value }: { key: string; value: number }) {
    await tx.put(key, value);
  },
};
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
/** Background persists never run: only what is stored explicitly survives a "crash". */
const frozenTimers = { setTimeout: () => 0, clearTimeout: () => {} };

let n = 0;
const names: string[] = [];
afterEach(() => {
  for (const name of names.splice(0)) MemoryStore.drop(name);
});

interface PageLoad {
  readonly store: Store;
  readonly durable: DurableMutations;
  readonly errors: string[];
}

/** A page load over the kv store `name`; dropping it without close() is a crash. */
async function load(name: string, clientID: string): Promise<PageLoad> {
  const kv = new MemoryStore(name);
  const errors: string[] = [];
  const durable = new DurableMutations(kv, { error: (message) => errors.push(message), info() {} });
  const store = await createStore({
    kvStore: kv,
    clientID,
    mutators,
    logger: quiet,
    timers: frozenTimers,
    onLocalMutation: (mutation) => durable.record(mutation),
  });
  await durable.recover(store);
  return { store, durable, errors };
}

function fresh(): string {
  const name = `durable-${++n}`;
  names.push(name);
  return name;
}

async function settleLog(name: string) {
  return new MutationLog(new MemoryStore(name)).entries();
}

describe('DurableMutations', () => {
  it('recovers mutations made just before a crash, with their client and ids', async () => {
    const name = fresh();
    const first = await load(name, 'client-a');
    for (let i = 1; i <= 3; i++) await first.store.mutate('put', { key: `k${i}`, value: i });
    expect(await settleLog(name)).toHaveLength(3);

    const second = await load(name, 'client-b');
    expect(await second.store.query((tx) => tx.scan().entries().toArray())).toEqual([
      ['k1', 1],
      ['k2', 2],
      ['k3', 3],
    ]);
    expect(second.store.pendingMutations().map((m) => [m.clientID, m.id])).toEqual([
      ['client-a', 1],
      ['client-a', 2],
      ['client-a', 3],
    ]);
    expect(await settleLog(name)).toEqual([]);

    const third = await load(name, 'client-c');
    expect(third.store.pendingMutations()).toHaveLength(3);
    await third.store.close();
  });

  it('does not replay what the stored state already holds', async () => {
    const name = fresh();
    const first = await load(name, 'client-a');
    await first.store.mutate('put', { key: 'a', value: 1 });
    await first.store.persist();
    await first.store.mutate('put', { key: 'b', value: 2 });
    const second = await load(name, 'client-b');
    expect(second.store.pendingMutations().map((m) => m.id)).toEqual([1, 2]);
    expect(second.errors).toEqual([]);
    await second.store.close();
  });

  it('drops entries the server acknowledged', async () => {
    const name = fresh();
    const page = await load(name, 'client-a');
    for (let i = 1; i <= 4; i++) await page.store.mutate('put', { key: `k${i}`, value: i });
    await page.store.applyServerUpdate({ baseCookie: null, cookie: 1, lastMutationIDChanges: { 'client-a': 3 }, patch: [] });
    page.durable.acknowledged();
    expect((await settleLog(name)).map((e) => e.id)).toEqual([4]);
    await page.store.close();
  });

  it('checkpoints: stores the state and empties the log, also on its own after many entries', async () => {
    const name = fresh();
    const page = await load(name, 'client-a');
    await page.store.mutate('put', { key: 'a', value: 1 });
    await page.durable.checkpoint();
    expect(await settleLog(name)).toEqual([]);
    for (let i = 0; i < MAX_LOG_ENTRIES_BEFORE_CHECKPOINT + 5; i++) await page.store.mutate('put', { key: 'b', value: i });
    await page.durable.checkpoint();
    expect(await settleLog(name)).toEqual([]);
    const again = await load(name, 'client-b');
    expect(again.store.pendingMutations()).toHaveLength(MAX_LOG_ENTRIES_BEFORE_CHECKPOINT + 6);
    await again.store.close();
  });

  it('drops a logged mutation that can never apply, saying why', async () => {
    const name = fresh();
    await new MutationLog(new MemoryStore(name)).append({ clientID: 'ghost', id: 5, name: 'put', args: { key: 'x', value: 1 }, timestamp: 1 });
    const page = await load(name, 'client-a');
    expect(page.errors).toEqual([expect.stringContaining('Dropping logged mutation ghost/5')]);
    expect(await settleLog(name)).toEqual([]);
    expect(page.store.pendingMutations()).toEqual([]);
    await page.store.close();
  });
});
