import type { Database } from '../db/database';
import { beginSync } from './begin-sync';
import { endSync } from './end-sync';
import { OverlappingSyncError } from './errors';
import type { ServerUpdate } from './server-update';

/**
 * Applies a poke or pull answer: only on top of the matching base cookie
 * (else UnexpectedBaseCookieError), one at a time (else OverlappingSyncError).
 * Resolves once the subscriptions have seen the change.
 */
export async function applyServerUpdate(db: Database, update: ServerUpdate): Promise<void> {
  db.checkOpen();
  if (db.syncing) throw new OverlappingSyncError();
  db.syncing = true;
  let change;
  try {
    change = await db.syncLock.run(async () => endSync(db, await beginSync(db, update)));
  } finally {
    db.syncing = false;
  }
  if (change.diff.length > 0) await db.subscriptions.fire(change);
}
