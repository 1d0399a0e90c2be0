/**
 * Old-database cleanup (SPEC.md §9): stores of an older format unused for
 * OLD_DB_CLEANUP_MAX_AGE_MS (30 days) and stores of the current format unused
 * for OLD_DB_CLEANUP_MAX_AGE_NO_PENDING_MS (14 days) are deleted with their
 * write-ahead log — never one that still holds a mutation the server has not
 * acknowledged, and never the store in use.
 */
import { OLD_DB_CLEANUP_MAX_AGE_MS, OLD_DB_CLEANUP_MAX_AGE_NO_PENDING_MS } from '../../protocol/constants';
import { PersistentDagStore } from '../dag/store';
import type { KvProvider } from '../kv/provider';
import type { KvStore } from '../kv/types';
import { hasUnstoredLogEntries } from './collect';
import { readLegacyGroup } from './legacy-store';
import { readLogs } from './mutation-log';
import { hasPendingMutations, readGroups } from './records';
import { STORE_FORMAT_VERSION } from './store-names';
import type { RegisteredStore, StoreRegistry } from './store-registry';

/** How long a store of `format` may stay unused. */
export function maxUnusedMs(format: number): number {
  return format < STORE_FORMAT_VERSION ? OLD_DB_CLEANUP_MAX_AGE_MS : OLD_DB_CLEANUP_MAX_AGE_NO_PENDING_MS;
}

export interface CleanupResult {
  readonly deleted: string[];
  /** Old enough, but kept because they hold mutations to push. */
  readonly keptWithPending: string[];
}

export async function cleanupOldStores(
  registry: StoreRegistry,
  provider: KvProvider,
  inUse: ReadonlySet<string>,
  now: number,
): Promise<CleanupResult> {
  const result: CleanupResult = { deleted: [], keptWithPending: [] };
  for (const entry of await registry.stores(now)) {
    if (inUse.has(entry.dataName) || now - entry.lastUsedMs <= maxUnusedMs(entry.format)) continue;
    if (await holdsPendingMutations(provider, entry)) {
      result.keptWithPending.push(entry.dataName);
      continue;
    }
    await registry.drop(entry);
    result.deleted.push(entry.dataName);
  }
  return result;
}

/** Whether a store (of any format) holds a mutation its server has not acknowledged. */
export async function holdsPendingMutations(provider: KvProvider, entry: RegisteredStore): Promise<boolean> {
  const [dataKv, logKv] = await Promise.all([provider.open(entry.dataName), provider.open(entry.logName)]);
  try {
    if (entry.format < STORE_FORMAT_VERSION) {
      const group = await readLegacyGroup(dataKv, logKv);
      return group !== undefined && !group.disabled && group.pending.length > 0;
    }
    return await sharedStoreHoldsPending(dataKv, logKv);
  } finally {
    await Promise.all([dataKv.close(), logKv.close()]);
  }
}

async function sharedStoreHoldsPending(dataKv: KvStore, logKv: KvStore): Promise<boolean> {
  const groups = await new PersistentDagStore(dataKv).withRead((r) => readGroups(r));
  const logs = await readLogs(logKv);
  for (const [clientGroupID, group] of groups) {
    if (group.disabled) continue;
    if (hasPendingMutations(group) || hasUnstoredLogEntries(clientGroupID, group, logs)) return true;
  }
  // Logged clients whose group is not recorded (yet): their entries are all there is.
  return logs.some((log) => !groups.has(log.clientGroupID) && log.entries.length > 0);
}
