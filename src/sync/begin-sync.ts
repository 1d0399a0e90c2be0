import type { Hash } from '../dag/types';
import type { ChangeMap } from '../db/change-set';
import { newCommitChunk, SYNC_HEAD, type Commit, type SnapshotCommitData } from '../db/commit';
import type { Database } from '../db/database';
import { deepEqualJSON, deepFreezeJSON } from '../db/json-value';
import { flushWriters, openWriters } from '../db/mutation-runner';
import { WriteTransactionImpl } from '../db/write-transaction';
import { UnexpectedBaseCookieError } from './errors';
import { mergeLastMutationIDs } from './last-mutation-ids';
import type { ServerUpdate } from './server-update';

export interface SyncStart {
  readonly syncHash: Hash;
  /** Keys the patch touched, or 'all' after a clear. */
  readonly patchKeys: ReadonlySet<string> | 'all';
  /** The new snapshot commit (the chunk serves as the commit), which the sync head points at. */
  readonly snapshot: Commit<SnapshotCommitData>;
  /** The snapshot the patch was applied to. */
  readonly baseHash: Hash;
  /** What the patch changed in the primary map (undefined after a clear). */
  readonly changes: ChangeMap | undefined;
}

/**
 * First half of applying a server update: checks the base cookie against the
 * local snapshot, builds the new snapshot (patch applied to data and indexes,
 * acknowledged ids merged) and points the sync head at it.
 */
export async function beginSync(db: Database, update: ServerUpdate): Promise<SyncStart> {
  const { ctx } = db;
  return db.dag.withWrite(async (dag) => {
    const base = db.snapshotCommit;
    if (!deepEqualJSON(base.data.cookie, update.baseCookie)) {
      throw new UnexpectedBaseCookieError(base.data.cookie, update.baseCookie);
    }
    const maps = openWriters(dag, base.data, ctx);
    const tx = new WriteTransactionImpl(db.clientID, 'initial', 0, maps, ctx.compare, ctx.indexes, undefined, (e, key) =>
      ctx.logger.error(`Not indexing ${JSON.stringify(key)} from the server`, e),
    );
    let patchKeys: Set<string> | 'all' = new Set();
    for (const op of update.patch) {
      switch (op.op) {
        case 'put': {
          const value = deepFreezeJSON(op.value);
          // At once where it can be (no promise per put of a poke), else with the wait.
          if (!tx.putNow(op.key, value)) await tx.write(op.key, value);
          if (patchKeys !== 'all') patchKeys.add(op.key);
          break;
        }
        case 'del':
          await tx.write(op.key, undefined);
          if (patchKeys !== 'all') patchKeys.add(op.key);
          break;
        case 'clear':
          await tx.clearAll();
          patchKeys = 'all';
          break;
      }
    }
    tx.close();
    const changed = patchKeys === 'all' || patchKeys.size > 0;
    const { valueHash, indexes } = await flushWriters(maps, base.data, changed);
    const data: SnapshotCommitData = {
      type: 'snapshot',
      basisHash: null,
      cookie: update.cookie,
      lastMutationIDs: mergeLastMutationIDs(base.data.lastMutationIDs, update.lastMutationIDChanges, ctx.logger),
      valueHash,
      indexes,
    };
    const chunk = newCommitChunk(dag, data);
    await dag.putChunk(chunk);
    await dag.setHead(SYNC_HEAD, chunk.hash);
    await dag.commit();
    const snapshot = chunk as unknown as Commit<SnapshotCommitData>;
    return { syncHash: chunk.hash, snapshot, patchKeys, baseHash: base.hash, changes: patchKeys === 'all' ? undefined : tx.changes };
  });
}
