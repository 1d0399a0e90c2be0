import type { ServerContext } from './context';

/** Which connections an invalidation covers: every one with `all`, else those matching each field given. */
export interface InvalidationTarget {
  readonly all: boolean;
  readonly userID?: string | undefined;
  readonly roomID?: string | undefined;
}

/** Sends AuthInvalidated to this node's matching connections and closes them; answers how many. */
export function invalidateConnections(ctx: ServerContext, target: InvalidationTarget): number {
  let invalidated = 0;
  for (const conn of [...ctx.connections]) {
    if (conn.isClosed) continue;
    if (target.userID !== undefined && conn.userID !== target.userID) continue;
    if (target.roomID !== undefined && conn.roomID !== target.roomID) continue;
    conn.fail('AuthInvalidated', 'Authentication was invalidated; fetch a new token');
    invalidated++;
  }
  return invalidated;
}
