/**
 * The recovery runner loads the code that finds and recovers other groups
 * (other-stores.ts, a lazy chunk in a browser bundle) only when a round may
 * find something: a page with its own group alone never loads it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WriteTransaction } from '../db/transaction-types';
import type { RecoveryChannel } from './mutation-recovery';
import { RecoveryRunner } from './recovery-runner';
import { StoreRegistry } from './store-registry';
import { Tabs, type Tab } from './testing/tabs';

const loads = vi.hoisted(() => ({ otherStores: 0 }));
vi.mock('./other-stores', async (importOriginal) => {
  loads.otherStores++;
  return importOriginal();
});

let tabs: Tabs;
afterEach(async () => {
  await tabs.closeAll();
});

const otherBuild = {
  async note(tx: WriteTransaction, text: string) {
    await tx.put(`note/${tx.mutationID}`, text);
  },
};

/** Runs one round (connected, then stopped once it has ended) and returns the group ids pushed under. */
async function round(self: Tab): Promise<string[]> {
  const pushed: string[] = [];
  const channel: RecoveryChannel = {
    connected: true,
    push: (clientGroupID) => void pushed.push(clientGroupID),
    pull: async () => ({ lastMutationIDChanges: {} }),
  };
  const runner = new RecoveryRunner({
    channel,
    registry: new StoreRegistry(tabs.provider),
    provider: tabs.provider,
    dataName: 'data',
    perdag: self.client.perdag,
    logKv: await tabs.logKv(),
    clientGroupID: self.client.clientGroupID,
    userID: 'u',
    roomID: 'room',
    now: () => tabs.clock.now(),
    timers: tabs.clock,
    logger: { error() {}, info() {} },
    onVersionNotSupported() {},
  });
  runner.connected();
  await runner.stop();
  return pushed;
}

describe('recovery runner', () => {
  it('with no other group or store, a round ends without loading the recovery code; with one, it loads it and pushes', async () => {
    tabs = new Tabs({ frozen: true });
    const self = await tabs.open();
    expect(await round(self)).toEqual([]);
    expect(loads.otherStores).toBe(0);

    const other = await tabs.open({ mutators: otherBuild, id: 'other' });
    await other.client.store.mutate('note', 'unpushed');
    await other.client.sync();
    tabs.crash(other);
    expect(await round(self)).toEqual(['group-of-other']);
    expect(loads.otherStores).toBe(1);
  });
});
