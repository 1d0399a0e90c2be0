/**
 * Heartbeats and garbage collection of the records of a shared local store
 * (SPEC.md §9): clients silent for longer than CLIENT_MAX_INACTIVE_MS are
 * removed (never the running one), then client groups no client refers to
 * and holding no pending mutation, then write-ahead logs whose client is gone
 * and whose entries are all stored. Chunks go with the last head holding them.
 */
import { CLIENT_MAX_INACTIVE_MS } from '../../protocol/constants';
import type { PersistentDagStore } from '../dag/store';
import type { KvStore } from '../kv/types';
import { dropLog, readLogs, type ClientLog } from './mutation-log';
import { deleteClient, deleteGroup, hasPendingMutations, readClient, readClients, readGroups, writeClient, type ClientGroupRecord } from './records';

/** Records a heartbeat of `clientID`; false when its record is gone (the client state was not found). */
export function heartbeat(perdag: PersistentDagStore, clientID: string, now: number): Promise<boolean> {
  return perdag.withWrite(async (w) => {
    const client = await readClient(w, clientID);
    if (client === undefined) return false;
    if (client.heartbeatTimestampMs < now) {
      await writeClient(w, clientID, { ...client, heartbeatTimestampMs: now }, client);
      await w.commit();
    }
    return true;
  });
}

/** Removes clients whose last heartbeat is older than CLIENT_MAX_INACTIVE_MS, except `selfID`. Returns their ids. */
export function collectClients(perdag: PersistentDagStore, selfID: string, now: number): Promise<string[]> {
  return perdag.withWrite(async (w) => {
    const removed: string[] = [];
    for (const [clientID, client] of await readClients(w)) {
      if (clientID !== selfID && now - client.heartbeatTimestampMs > CLIENT_MAX_INACTIVE_MS) {
        await deleteClient(w, clientID);
        removed.push(clientID);
      }
    }
    if (removed.length > 0) await w.commit();
    return removed;
  });
}

/**
 * Removes client groups no client refers to that hold nothing to push: no
 * pending mutation in the group, none in a log of one of its clients. A
 * disabled group's mutations can never be pushed (the server does not know
 * the group), so it goes once no client refers to it. Returns their ids.
 */
export async function collectGroups(perdag: PersistentDagStore, logKv: KvStore): Promise<string[]> {
  const logs = await readLogs(logKv);
  return perdag.withWrite(async (w) => {
    const referenced = new Set([...(await readClients(w)).values()].map((c) => c.clientGroupID));
    const removed: string[] = [];
    for (const [clientGroupID, group] of await readGroups(w)) {
      if (referenced.has(clientGroupID)) continue;
      if (!group.disabled && (hasPendingMutations(group) || hasUnstoredLogEntries(clientGroupID, group, logs))) continue;
      await deleteGroup(w, clientGroupID);
      removed.push(clientGroupID);
    }
    if (removed.length > 0) await w.commit();
    return removed;
  });
}

/** Drops the logs of clients that are gone once their group stores every entry (or is gone). Returns their ids. */
export async function collectLogs(perdag: PersistentDagStore, logKv: KvStore): Promise<string[]> {
  const logs = await readLogs(logKv);
  if (logs.length === 0) return [];
  const { clients, groups } = await perdag.withRead(async (r) => ({ clients: await readClients(r), groups: await readGroups(r) }));
  const dropped: string[] = [];
  for (const log of logs) {
    if (clients.has(log.clientID)) continue;
    const group = groups.get(log.clientGroupID);
    if (group !== undefined && !group.disabled && hasUnstoredLogEntries(log.clientGroupID, group, [log])) continue;
    await dropLog(logKv, log.clientID);
    dropped.push(log.clientID);
  }
  return dropped;
}

export function hasUnstoredLogEntries(clientGroupID: string, group: ClientGroupRecord, logs: readonly ClientLog[]): boolean {
  return logs.some(
    (log) => log.clientGroupID === clientGroupID && log.entries.some((e) => e.id > (group.mutationIDs[log.clientID] ?? 0)),
  );
}
