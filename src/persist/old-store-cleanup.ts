/**
 * Old-database cleanup (SPEC.md §9): stores of an older format unused for
 * OLD_DB_CLEANUP_MAX_AGE_MS (30 days) and stores of the current format unused
 * for OLD_DB_CLEANUP_MAX_AGE_NO_PENDING_MS (14 days) are deleted with their
 * write-ahead log and its start-up hint in localStorage — never one that still holds a mutation the server has not
 * acknowledged, and never the store in use. The code that looks into a store
 * for such mutations (other-stores.ts) is loaded only when a store is old
 * enough.
 */
import { OLD_DB_CLEANUP_MAX_AGE_MS, OLD_DB_CLEANUP_MAX_AGE_NO_PENDING_MS } from '../../protocol/constants';
import type { KvProvider } from '../kv/provider';
import { forgetChainHint } from './group-chain';
import { loadOtherStores, storeKit } from './store-kit';
import { STORE_FORMAT_VERSION } from './store-names';
import type { StoreRegistry } from './store-registry';

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
  const old = (await registry.stores(now)).filter((entry) => !inUse.has(entry.dataName) && now - entry.lastUsedMs > maxUnusedMs(entry.format));
  if (old.length === 0) return result;
  const { holdsPendingMutations } = await loadOtherStores();
  for (const entry of old) {
    if (await holdsPendingMutations(storeKit, provider, entry)) {
      result.keptWithPending.push(entry.dataName);
      continue;
    }
    await registry.drop(entry);
    // Its start-up hint (see ChainHint) names chunks of a store that is gone.
    forgetChainHint(entry.dataName);
    result.deleted.push(entry.dataName);
  }
  return result;
}
