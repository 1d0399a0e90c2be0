import { afterEach, describe, expect, it } from 'vitest';
import { PersistentDagStore } from '../dag/store';
import type { WriteTransaction } from '../db/transaction-types';
import { recoverRound, type RecoveryChannel } from './mutation-recovery';
import { findRecoverableGroups, type RecoveryRound } from './recoverable-groups';
import { hasPendingMutations, readGroup } from './records';
import { storeKit } from './store-kit';
import { dataStoreName } from './store-names';
import { StoreRegistry } from './store-registry';
import { Tabs, type Tab } from './testing/tabs';

const otherBuild = {
  async note(tx: WriteTransaction, text: string) {
    await tx.put(`note/${tx.mutationID}`, text);
  },
};

let tabs: Tabs;
const rounds: RecoveryRound[] = [];
afterEach(async () => {
  for (const r of rounds.splice(0)) await r.close();
  await tabs.closeAll();
});

/** A server as recovery sees it: remembers pushes, answers pulls with what it acknowledged. */
function fakeChannel(answer: 'ack' | 'unknown' | 'version' | 'timeout' = 'ack') {
  const pushes: { clientGroupID: string; schemaVersion: string; ids: string[] }[] = [];
  const pulls: { clientGroupID: string; cookie: number | null }[] = [];
  const acked: Record<string, number> = {};
  const channel: RecoveryChannel = {
    connected: true,
    push(clientGroupID, schemaVersion, mutations) {
      pushes.push({ clientGroupID, schemaVersion, ids: mutations.map((m) => `${m.clientID}:${m.id}`) });
      for (const m of mutations) if (m.id === (acked[m.clientID] ?? 0) + 1) acked[m.clientID] = m.id;
    },
    async pull(clientGroupID, cookie) {
      pulls.push({ clientGroupID, cookie });
      if (answer === 'ack') return { lastMutationIDChanges: { ...acked } };
      const kind = answer === 'unknown' ? 'ClientNotFound' : answer === 'version' ? 'VersionNotSupported' : 'PullTimeout';
      throw Object.assign(new Error('Failed to pull'), { kind });
    },
  };
  return { channel, pushes, pulls };
}

async function scope(t: Tabs, tab: Tab, stores: Awaited<ReturnType<StoreRegistry['stores']>> = []) {
  const round = await findRecoverableGroups({
    kit: storeKit,
    provider: t.provider,
    dataName: 'data',
    perdag: tab.client.perdag,
    logKv: await t.logKv(),
    clientGroupID: tab.client.clientGroupID,
    userID: 'u',
    roomID: 'room',
    stores,
  });
  rounds.push(round);
  return round;
}

const quiet = { error() {}, info() {} };

async function groupOf(t: Tabs, clientGroupID: string) {
  return new PersistentDagStore(await t.dataKv()).withRead((r) => readGroup(r, clientGroupID));
}

describe('mutation recovery', () => {
  it("pushes another group's unpushed mutations under its id (stored and only logged ones), confirms with a pull and records the acknowledgement", async () => {
    tabs = new Tabs({ frozen: true });
    const other = await tabs.open({ mutators: otherBuild, id: 'other' });
    await other.client.store.mutate('note', 'stored');
    await other.client.sync();
    await other.client.store.mutate('note', 'only logged');
    tabs.crash(other);
    const self = await tabs.open();

    const round = await scope(tabs, self);
    expect(round.groups.map((g) => [g.clientGroupID, g.mutations.map((m) => m.id)])).toEqual([['group-of-other', [1, 2]]]);
    const { channel, pushes, pulls } = fakeChannel();
    expect(await recoverRound(channel, round, quiet, () => {})).toEqual(['recovered']);
    expect(pushes).toEqual([{ clientGroupID: 'group-of-other', schemaVersion: '', ids: ['other:1', 'other:2'] }]);
    expect(pulls).toEqual([{ clientGroupID: 'group-of-other', cookie: null }]);
    const group = await groupOf(tabs, 'group-of-other');
    expect(group?.lastServerAckdMutationIDs).toEqual({ other: 2 });
    expect(hasPendingMutations(group!)).toBe(false);
    // Nothing is left to recover.
    expect((await scope(tabs, self)).groups).toEqual([]);
  });

  it('never recovers its own group: its own tabs push it', async () => {
    tabs = new Tabs({ frozen: true });
    const sibling = await tabs.open();
    await sibling.client.store.mutate('put', { key: 'k', value: 1 });
    tabs.crash(sibling);
    const self = await tabs.open();
    expect((await scope(tabs, self)).groups).toEqual([]);
  });

  it("finds the stores of the user and room's other schema versions and of the earlier format", async () => {
    tabs = new Tabs({ frozen: true });
    const self = await tabs.open();
    // A store of another schema version, with one tab's unpushed mutation.
    const otherSchema = dataStoreName('u', 'room', '2');
    const otherTabs = new Tabs({ frozen: true, provider: tabs.provider, dataName: otherSchema, logName: `${otherSchema}:log` });
    const v2 = await otherTabs.open({ id: 'v2', mutators: otherBuild });
    await v2.client.store.mutate('note', 'from schema 2');
    await otherTabs.closeAll();
    const registry = new StoreRegistry(tabs.provider);
    await registry.touch(otherSchema, tabs.clock.now());
    await registry.touch(dataStoreName('someone-else', 'room', '2'), tabs.clock.now());

    const round = await scope(tabs, self, await registry.stores(tabs.clock.now()));
    expect(round.groups.map((g) => [g.store, g.schemaVersion, g.clientGroupID, g.mutations.length])).toEqual([[otherSchema, '2', 'group-of-v2', 1]]);
  });

  it('a group the server does not know is disabled and never recovered again', async () => {
    tabs = new Tabs({ frozen: true });
    const other = await tabs.open({ mutators: otherBuild, id: 'other' });
    await other.client.store.mutate('note', 'x');
    await tabs.close(other);
    const self = await tabs.open();
    const errors: string[] = [];
    const { channel } = fakeChannel('unknown');
    expect(await recoverRound(channel, await scope(tabs, self), { error: (m) => errors.push(m), info() {} }, () => {})).toEqual(['unknown-group']);
    expect(errors).toEqual(['Client group group-of-other is unknown on server']);
    expect((await groupOf(tabs, 'group-of-other'))?.disabled).toBe(true);
    expect((await scope(tabs, self)).groups).toEqual([]);
  });

  it('a version the server does not support disables the group, stops the round and says an update is needed', async () => {
    tabs = new Tabs({ frozen: true });
    for (const id of ['one', 'two']) {
      const other = await tabs.open({ mutators: id === 'one' ? otherBuild : { ...otherBuild, more: async () => {} }, id });
      await other.client.store.mutate('note', id);
      await tabs.close(other);
    }
    const self = await tabs.open();
    let updateNeeded = 0;
    const { channel, pulls } = fakeChannel('version');
    expect(await recoverRound(channel, await scope(tabs, self), quiet, () => updateNeeded++)).toEqual(['version-not-supported']);
    expect(pulls).toHaveLength(1);
    expect(updateNeeded).toBe(1);
  });

  it('a pull that times out leaves the mutations pending for the next round', async () => {
    tabs = new Tabs({ frozen: true });
    const other = await tabs.open({ mutators: otherBuild, id: 'other' });
    await other.client.store.mutate('note', 'x');
    await tabs.close(other);
    const self = await tabs.open();
    const { channel } = fakeChannel('timeout');
    expect(await recoverRound(channel, await scope(tabs, self), quiet, () => {})).toEqual(['interrupted']);
    expect(hasPendingMutations((await groupOf(tabs, 'group-of-other'))!)).toBe(true);
    expect((await scope(tabs, self)).groups).toHaveLength(1);
  });

  it('recovers a store of the earlier format (one store per tab slot): its pending commits and its log beyond them', async () => {
    tabs = new Tabs({ frozen: true });
    const self = await tabs.open();
    const legacyName = 'roomsync:u:room~1';
    const { createStore } = await import('../db/store');
    const legacy = await createStore({ kvStore: await tabs.provider.open(legacyName), clientID: 'old-client', mutators: otherBuild, logger: { error() {}, warn() {} } });
    await legacy.mutate('note', 'stored in the slot');
    await legacy.close();
    const data = await tabs.provider.open(legacyName);
    const w = await data.write();
    await w.put('g/client-group', { clientGroupID: 'legacy-group', mutatorNames: ['note'], indexes: {}, disabled: false });
    await w.commit();
    const log = await (await tabs.provider.open(`${legacyName}:log`)).write();
    await log.put('g/log', { first: 0, next: 1 });
    await log.put('g/log/0', { clientID: 'old-client', id: 2, name: 'note', args: 'only logged', timestamp: 5 });
    await log.commit();

    const stores = await new StoreRegistry(tabs.provider).stores(tabs.clock.now());
    const round = await scope(tabs, self, stores);
    expect(round.groups.map((g) => [g.store, g.clientGroupID, g.mutations.map((m) => m.id)])).toEqual([[legacyName, 'legacy-group', [1, 2]]]);
    const { channel, pushes } = fakeChannel();
    expect(await recoverRound(channel, round, quiet, () => {})).toEqual(['recovered']);
    expect(pushes[0]?.ids).toEqual(['old-client:1', 'old-client:2']);
    expect((await scope(tabs, self, stores)).groups).toEqual([]);
  });
});
