/**
 * The code for other client groups and other stores, as one lazy chunk
 * (loaded with import() only when there is such a group or store): mutation
 * recovery, and whether an old store still holds mutations to push (before
 * old-store cleanup deletes it). It imports no start-up code at run time; what
 * it uses comes in a StoreKit (store-kit.ts says why).
 */
import type { KvProvider } from '../kv/provider';
import type { KvStore } from '../kv/types';
import { readLegacyGroup } from './legacy-store';
import type { StoreKit } from './store-kit';
import type { RegisteredStore } from './store-registry';

export { recoverRound } from './mutation-recovery';
export { findRecoverableGroups } from './recoverable-groups';

/** Whether a store (of any format) holds a mutation its server has not acknowledged. */
export async function holdsPendingMutations(kit: StoreKit, provider: KvProvider, entry: RegisteredStore): Promise<boolean> {
  const [dataKv, logKv] = await Promise.all([provider.open(entry.dataName), provider.open(entry.logName)]);
  try {
    if (entry.format < kit.STORE_FORMAT_VERSION) {
      const group = await readLegacyGroup(kit, dataKv, logKv);
      return group !== undefined && !group.disabled && group.pending.length > 0;
    }
    return await sharedStoreHoldsPending(kit, dataKv, logKv);
  } finally {
    await Promise.all([dataKv.close(), logKv.close()]);
  }
}

async function sharedStoreHoldsPending(kit: StoreKit, dataKv: KvStore, logKv: KvStore): Promise<boolean> {
  const groups = await new kit.PersistentDagStore(dataKv).withRead((r) => kit.readGroups(r));
  const logs = await kit.readLogs(logKv);
  for (const [clientGroupID, group] of groups) {
    if (group.disabled) continue;
    if (kit.hasPendingMutations(group) || kit.hasUnstoredLogEntries(clientGroupID, group, logs)) return true;
  }
  // Logged clients whose group is not recorded (yet): their entries are all there is.
  return logs.some((log) => !groups.has(log.clientGroupID) && log.entries.length > 0);
}
