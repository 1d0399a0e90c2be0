/**
 * What the lazily loaded code for other client groups and other stores
 * (other-stores.ts: mutation recovery, the pending check of old-store
 * cleanup, format-1 stores) uses of the start-up code, handed to it at run
 * time rather than imported. A chunk that imported these modules would share
 * them with the start-up code, and a bundler splitting code (esbuild, Rollup)
 * then moves them into a chunk of their own: the page would load two
 * start-up chunks that compress worse apart than the lazy code saves.
 */
import { RECOVERY_CACHE_BYTES } from '../../protocol/constants';
import { lazyChunk } from '../lazy-chunk';
import { LazyDagStore } from '../dag/lazy-store';
import { PersistentDagStore } from '../dag/store';
import { MAIN_HEAD, readChain, readCommit, readHeadCommit } from '../db/commit';
import { hasUnstoredLogEntries } from './collect';
import { readLogs } from './mutation-log';
import { disableGroup, hasPendingMutations, readGroup, readGroups, writeGroup } from './records';
import { STORE_FORMAT_VERSION } from './store-names';

export const storeKit = {
  RECOVERY_CACHE_BYTES,
  STORE_FORMAT_VERSION,
  MAIN_HEAD,
  LazyDagStore,
  PersistentDagStore,
  readChain,
  readCommit,
  readHeadCommit,
  hasUnstoredLogEntries,
  readLogs,
  disableGroup,
  hasPendingMutations,
  readGroup,
  readGroups,
  writeGroup,
} as const;

export type StoreKit = typeof storeKit;

/** The code for other client groups and stores (other-stores.ts), loaded the first time a round may need it (a failed load is tried again next time). */
export const loadOtherStores = lazyChunk(() => import('./other-stores'));
