/**
 * The client group of a local store: every client (page load, tab) that opens
 * the same store with the same mutators and indexes belongs to one group, so
 * mutations left pending by an earlier page load are pushed by the next one
 * under the group the server already knows.
 */
import type { IndexDefinitions } from '../db/index-definition';
import type { KvStore } from '../kv/types';

/** Next to the dag's `c/` (chunks) and `h/` (heads) keys. */
export const CLIENT_GROUP_KEY = 'g/client-group';

export interface StoredClientGroup {
  readonly clientGroupID: string;
  readonly mutatorNames: readonly string[];
  readonly indexes: IndexDefinitions;
  /** Set when the server no longer knows the group; the next open starts a new one. */
  readonly disabled: boolean;
}

export interface ResolveClientGroupOptions {
  readonly mutatorNames: readonly string[];
  readonly indexes: IndexDefinitions;
  readonly newClientGroupID: () => string;
  readonly onDiscard?: (reason: string) => void;
}

/** The group to join: the stored one when it is usable, else a new one (stored). */
export async function resolveClientGroup(kv: KvStore, options: ResolveClientGroupOptions): Promise<string> {
  const mutatorNames = [...options.mutatorNames].sort();
  const write = await kv.write();
  try {
    const stored = await write.get(CLIENT_GROUP_KEY);
    const reason = unusableReason(stored, mutatorNames, options.indexes);
    if (reason === undefined) {
      write.release();
      return (stored as unknown as StoredClientGroup).clientGroupID;
    }
    if (stored !== undefined) options.onDiscard?.(reason);
    const group: StoredClientGroup = {
      clientGroupID: options.newClientGroupID(),
      mutatorNames,
      indexes: options.indexes,
      disabled: false,
    };
    await write.put(CLIENT_GROUP_KEY, group as never);
    await write.commit();
    return group.clientGroupID;
  } catch (error) {
    write.release();
    throw error;
  }
}

/** Marks the group disabled ('Client group {id} is unknown on server'), so the next open starts a new one. */
export async function disableClientGroup(kv: KvStore, clientGroupID: string): Promise<void> {
  const write = await kv.write();
  try {
    const stored = await write.get(CLIENT_GROUP_KEY);
    if (isStoredClientGroup(stored) && stored.clientGroupID === clientGroupID && !stored.disabled) {
      const disabled: StoredClientGroup = { ...(stored as StoredClientGroup), disabled: true };
      await write.put(CLIENT_GROUP_KEY, disabled as never);
      await write.commit();
      return;
    }
    write.release();
  } catch (error) {
    write.release();
    throw error;
  }
}

function unusableReason(stored: unknown, mutatorNames: readonly string[], indexes: IndexDefinitions): string | undefined {
  if (stored === undefined) return 'none stored';
  if (!isStoredClientGroup(stored)) return 'the stored client group record is malformed';
  if (stored.disabled) return `client group ${stored.clientGroupID} is disabled`;
  if (JSON.stringify(stored.mutatorNames) !== JSON.stringify(mutatorNames)) return 'the mutators changed';
  if (canonicalJSON(stored.indexes) !== canonicalJSON(indexes)) return 'the indexes changed';
  return undefined;
}

function isStoredClientGroup(value: unknown): value is StoredClientGroup {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.clientGroupID === 'string' &&
    record.clientGroupID !== '' &&
    Array.isArray(record.mutatorNames) &&
    record.mutatorNames.every((name) => typeof name === 'string') &&
    typeof record.indexes === 'object' &&
    record.indexes !== null &&
    typeof record.disabled === 'boolean'
  );
}

function canonicalJSON(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
