/**
 * Where mutation recovery finds work: client groups other than this client's
 * that hold mutations their server has not acknowledged — in this client's
 * store (a tab of another build closed before pushing) and in the other
 * stores of the same user and room (another schema version, or the format of
 * an earlier release). Each comes with what recovery needs: its mutations in
 * push order, the cookie to pull from, and a way to record the outcome.
 * Loaded lazily with other-stores.ts: the start-up code it uses comes in the
 * scope's StoreKit.
 */
import type { LazyDagStore } from '../dag/lazy-store';
import type { PersistentDagStore } from '../dag/store';
import type { KvProvider } from '../kv/provider';
import type { KvStore } from '../kv/types';
import type { PendingMutation } from '../sync/server-update';
import { readLegacyGroup, recordLegacyAcks, recordLegacyDisabled } from './legacy-store';
import type { ClientLog } from './mutation-log';
import type { ClientGroupRecord } from './records';
import type { StoreKit } from './store-kit';
import type { RegisteredStore } from './store-registry';

export interface RecoverableGroup {
  /** The store it lives in. */
  readonly store: string;
  readonly clientGroupID: string;
  /** The schema version its mutations were made with (sent with their push). */
  readonly schemaVersion: string;
  /** The last server state the group received: the pull asks what changed since. */
  readonly cookie: number | null;
  /** What the server has not acknowledged, each client's in id order. */
  readonly mutations: readonly PendingMutation[];
  /** Records what the server acknowledged (so the mutations are not pending any more). */
  recordAcks(lastMutationIDs: Readonly<Record<string, number>>): Promise<void>;
  /** Marks the group disabled: the server does not know it or does not support its version. */
  disable(): Promise<void>;
}

export interface RecoveryScope {
  /** The start-up code this lazily loaded module uses (store-kit.ts). */
  readonly kit: StoreKit;
  readonly provider: KvProvider;
  /** This client's store, its log, its group. */
  readonly dataName: string;
  readonly perdag: PersistentDagStore;
  readonly logKv: KvStore;
  readonly clientGroupID: string;
  readonly userID: string;
  readonly roomID: string;
  /** Every store of this origin (from the registry). */
  readonly stores: readonly RegisteredStore[];
}

/** A round of recovery: the groups to recover, and what must be closed afterwards. */
export interface RecoveryRound {
  readonly groups: readonly RecoverableGroup[];
  close(): Promise<void>;
}

export async function findRecoverableGroups(scope: RecoveryScope): Promise<RecoveryRound> {
  const groups: RecoverableGroup[] = [];
  const opened: KvStore[] = [];
  const own = scope.stores.find((s) => s.dataName === scope.dataName);
  const { kit } = scope;
  groups.push(...(await sharedStoreGroups(kit, scope.dataName, own?.schemaVersion ?? '', scope.perdag, scope.logKv, scope.clientGroupID)));
  for (const entry of scope.stores) {
    if (entry.dataName === scope.dataName || entry.userID !== scope.userID || entry.roomID !== scope.roomID) continue;
    const [dataKv, logKv] = await Promise.all([scope.provider.open(entry.dataName), scope.provider.open(entry.logName)]);
    opened.push(dataKv, logKv);
    if (entry.format < kit.STORE_FORMAT_VERSION) {
      const legacy = await legacyGroup(kit, entry, dataKv, logKv);
      if (legacy !== undefined) groups.push(legacy);
    } else {
      groups.push(...(await sharedStoreGroups(kit, entry.dataName, entry.schemaVersion ?? '', new kit.PersistentDagStore(dataKv), logKv, undefined)));
    }
  }
  return { groups, close: async () => void (await Promise.all(opened.map((kv) => kv.close()))) };
}

async function sharedStoreGroups(
  kit: StoreKit,
  store: string,
  schemaVersion: string,
  perdag: PersistentDagStore,
  logKv: KvStore,
  ownGroupID: string | undefined,
): Promise<RecoverableGroup[]> {
  const records = await perdag.withRead((r) => kit.readGroups(r));
  const logs = await kit.readLogs(logKv);
  // Other groups' chunks are read through a small cache of their own (SPEC.md §9 recovery cache).
  const reader = new kit.LazyDagStore(perdag, { cacheBytes: kit.RECOVERY_CACHE_BYTES });
  const out: RecoverableGroup[] = [];
  for (const [clientGroupID, group] of records) {
    if (clientGroupID === ownGroupID || group.disabled) continue;
    const { mutations, cookie } = await pendingOf(kit, reader, group, logs.filter((l) => l.clientGroupID === clientGroupID));
    if (mutations.length === 0) continue;
    out.push({
      store,
      clientGroupID,
      schemaVersion,
      cookie,
      mutations,
      recordAcks: (acks) => recordAcks(kit, perdag, clientGroupID, acks),
      disable: () => kit.disableGroup(perdag, clientGroupID),
    });
  }
  return out;
}

/** The group head's pending mutations, then logged ones beyond them (a tab that crashed before its persist). */
async function pendingOf(
  kit: StoreKit,
  reader: LazyDagStore,
  group: ClientGroupRecord,
  logs: readonly ClientLog[],
): Promise<{ mutations: PendingMutation[]; cookie: number | null }> {
  const { snapshot, locals } = await reader.withRead(async (r) => kit.readChain(r, await kit.readCommit(r, group.headHash)));
  const acked: Record<string, number> = { ...snapshot.data.lastMutationIDs };
  for (const [clientID, id] of Object.entries(group.lastServerAckdMutationIDs)) acked[clientID] = Math.max(acked[clientID] ?? 0, id);
  const last: Record<string, number> = { ...acked };
  const mutations: PendingMutation[] = [];
  const take = (m: PendingMutation) => {
    if (m.id <= (acked[m.clientID] ?? 0) || m.id !== (last[m.clientID] ?? 0) + 1) return;
    mutations.push(m);
    last[m.clientID] = m.id;
  };
  for (const c of locals) {
    const d = c.data;
    take({ id: d.mutationID, clientID: d.clientID, name: d.mutatorName, args: d.mutatorArgs, timestamp: d.timestamp });
  }
  for (const log of logs) for (const e of log.entries) take({ id: e.id, clientID: e.clientID, name: e.name, args: e.args as PendingMutation['args'], timestamp: e.timestamp });
  const cookie = snapshot.data.cookie;
  return { mutations, cookie: typeof cookie === 'number' ? cookie : null };
}

/** Raises the group's acknowledged ids (and its known ids: logged mutations the server has are no longer pending). */
function recordAcks(kit: StoreKit, perdag: PersistentDagStore, clientGroupID: string, acks: Readonly<Record<string, number>>): Promise<void> {
  return perdag.withWrite(async (w) => {
    const group = await kit.readGroup(w, clientGroupID);
    if (group === undefined) return;
    const acked = { ...group.lastServerAckdMutationIDs };
    const ids = { ...group.mutationIDs };
    for (const [clientID, id] of Object.entries(acks)) {
      acked[clientID] = Math.max(acked[clientID] ?? 0, id);
      ids[clientID] = Math.max(ids[clientID] ?? 0, id);
    }
    await kit.writeGroup(w, clientGroupID, { ...group, lastServerAckdMutationIDs: acked, mutationIDs: ids }, group);
    await w.commit();
  });
}

async function legacyGroup(kit: StoreKit, entry: RegisteredStore, dataKv: KvStore, logKv: KvStore): Promise<RecoverableGroup | undefined> {
  const group = await readLegacyGroup(kit, dataKv, logKv);
  if (group === undefined || group.disabled || group.pending.length === 0) return undefined;
  return {
    store: entry.dataName,
    clientGroupID: group.clientGroupID,
    // Stores of format 1 did not record it; their builds sent the app's schema version of the time.
    schemaVersion: entry.schemaVersion ?? '',
    cookie: typeof group.cookie === 'number' ? group.cookie : null,
    mutations: group.pending,
    recordAcks: (acks) => recordLegacyAcks(dataKv, acks),
    disable: () => recordLegacyDisabled(dataKv),
  };
}
