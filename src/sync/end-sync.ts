import { letGoOfTrees, SYNC_HEAD } from '../db/commit';
import { toDiff, type ChangeMap } from '../db/change-set';
import { diffCommits } from '../db/commit-diff';
import type { Database } from '../db/database';
import { rebaseLocals } from '../db/rebase';
import type { StoreChange } from '../db/subscriptions';
import { WrongSyncHeadError } from './errors';
import type { SyncStart } from './begin-sync';

/**
 * Second half: under the database lock, replays the pending local commits of
 * the head on top of the sync snapshot, moves the head there and drops the
 * sync head. Returns the change the head went through (one, consistent).
 */
export async function endSync(db: Database, start: SyncStart): Promise<StoreChange> {
  const { ctx } = db;
  return db.lock.run(async () => {
    db.checkOpen();
    const dag = await db.dag.write();
    try {
      if ((await dag.getHead(SYNC_HEAD)) !== start.syncHash) throw new WrongSyncHeadError();
      const { snapshot } = start;
      const oldHead = db.headCommit;
      // The head's local commits as the database keeps them (under its lock, nothing changes them meanwhile): a
      // long backlog's chain is not read again from the dag (one commit object each, and a touch of each in its cache).
      const locals = db.headLocals();
      const rebased =
        locals.mutations.length === 0
          ? { head: snapshot, locals: [], written: new Map<string, ChangeMap>() }
          : await rebaseLocals(dag, snapshot, locals, (n) => db.mutatorFor(n), ctx);

      let diff;
      if (oldHead.hash === start.baseHash && start.changes !== undefined) {
        // The head is the snapshot the patch went on (nothing pending, nothing rebased): the head changes as the patch did.
        diff = toDiff(start.changes, ctx.compare);
      } else {
        let candidates: Set<string> | 'all' = start.patchKeys === 'all' ? 'all' : new Set(start.patchKeys);
        for (const hash of locals.hashes) {
          if (candidates === 'all') break;
          const keys = db.keysWrittenBy(hash);
          if (keys === undefined) candidates = 'all';
          else for (const k of keys) candidates.add(k);
        }
        if (candidates !== 'all') for (const changes of rebased.written.values()) for (const k of changes.keys()) candidates.add(k);
        diff = await diffCommits(dag, oldHead.data, rebased.head.data, candidates, ctx);
      }

      await dag.setHead(db.headName, rebased.head.hash);
      await dag.removeHead(SYNC_HEAD);
      letGoOfTrees(dag, rebased.locals.slice(0, -1));
      await dag.commit();

      db.resetWrittenKeys(rebased.written);
      const change = db.makeChange(diff);
      db.adoptSyncedHead(rebased.head, snapshot, rebased.locals, change);
      return change;
    } finally {
      dag.release();
    }
  });
}
