/**
 * The client and client-group records of a shared local store (SPEC.md §3),
 * kept beside the chunks so that they change in the same transactions.
 *
 * Each record also holds chunks alive through a head of its own: a client
 * through `client/<id>` (the state its page works on) and, while a refresh
 * reads another tab's state, `refresh/<id>`; a group through `group/<id>`.
 * The record's hash fields and those heads always move together here.
 */
import type { ClientGroupRecord, ClientRecord } from '../protocol/generated/types';
import { validateClientGroupRecord, validateClientRecord } from '../protocol/generated/validators';
import { CorruptedStorageError } from '../dag/errors';
import type { PersistentDagRead, PersistentDagStore, PersistentDagWrite } from '../dag/store';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { deleteGroupChain } from './group-chain';

export type { ClientGroupRecord, ClientRecord };

const CLIENT_IDS = 'clients';
/** What the list of group ids and every group record's name start with (one prefetch reads them all). */
export const GROUPS_PREFIX = 'group';
const GROUP_IDS = `${GROUPS_PREFIX}s`;
const clientKey = (id: string) => `client/${id}`;
/** The names of the client-group records start with it. */
export const GROUP_RECORDS_PREFIX = `${GROUPS_PREFIX}/`;
const groupKey = (id: string) => `${GROUP_RECORDS_PREFIX}${id}`;

export const clientHead = (id: string): string => `client/${id}`;
export const refreshHead = (id: string): string => `refresh/${id}`;
export const groupHead = (id: string): string => `group/${id}`;

async function readIDs(read: PersistentDagRead, name: string): Promise<string[]> {
  const value = await read.getMeta(name);
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((id) => typeof id === 'string')) {
    throw new CorruptedStorageError(`m/${name}`, 'a record index must be a list of ids');
  }
  return value as string[];
}

async function addID(write: PersistentDagWrite, name: string, id: string): Promise<void> {
  const ids = await readIDs(write, name);
  if (!ids.includes(id)) await write.putMeta(name, [...ids, id]);
}

async function removeID(write: PersistentDagWrite, name: string, id: string): Promise<void> {
  const ids = await readIDs(write, name);
  if (ids.includes(id)) await write.putMeta(name, ids.filter((x) => x !== id));
}

function checked<T>(key: string, value: ReadonlyJSONValue | undefined, valid: (v: unknown) => v is T, what: string): T | undefined {
  if (value === undefined) return undefined;
  if (!valid(value)) throw new CorruptedStorageError(`m/${key}`, `not a valid ${what} record`);
  return value;
}

export async function readClient(read: PersistentDagRead, clientID: string): Promise<ClientRecord | undefined> {
  const key = clientKey(clientID);
  return checked(key, await read.getMeta(key), validateClientRecord, 'client');
}

export async function readGroup(read: PersistentDagRead, clientGroupID: string): Promise<ClientGroupRecord | undefined> {
  const key = groupKey(clientGroupID);
  return checked(key, await read.getMeta(key), validateClientGroupRecord, 'client group');
}

/** Every client record, by client id. */
export async function readClients(read: PersistentDagRead): Promise<Map<string, ClientRecord>> {
  const ids = await readIDs(read, CLIENT_IDS);
  const records = await Promise.all(ids.map((id) => readClient(read, id)));
  const out = new Map<string, ClientRecord>();
  ids.forEach((id, i) => {
    const record = records[i];
    if (record !== undefined) out.set(id, record);
  });
  return out;
}

export function readGroupIDs(read: PersistentDagRead): Promise<string[]> {
  return readIDs(read, GROUP_IDS);
}

/** Every client-group record, by group id. */
export async function readGroups(read: PersistentDagRead): Promise<Map<string, ClientGroupRecord>> {
  const ids = await readIDs(read, GROUP_IDS);
  const records = await Promise.all(ids.map((id) => readGroup(read, id)));
  const out = new Map<string, ClientGroupRecord>();
  ids.forEach((id, i) => {
    const record = records[i];
    if (record !== undefined) out.set(id, record);
  });
  return out;
}

/**
 * Reads what storing a new client record reads (the list of clients, the
 * client's heads), so that a caller can have them read together with its own
 * reads; the write then reads them again from its transaction's memory.
 */
export async function readForNewClient(write: PersistentDagWrite, clientID: string): Promise<void> {
  const heads = [clientHead(clientID), refreshHead(clientID)];
  // A client's heads are written and deleted with its id in the list: a client not listed (a new page
  // load's) has none, and the write asks nothing for them.
  if (!(await readIDs(write, CLIENT_IDS)).includes(clientID)) write.headsAbsent(heads);
  else await Promise.all(heads.map((name) => write.getHead(name)));
}

/** Stores a client record and moves its heads with it. `previous` is the stored record, if any. */
export async function writeClient(
  write: PersistentDagWrite,
  clientID: string,
  record: ClientRecord,
  previous: ClientRecord | undefined,
): Promise<void> {
  if (previous === undefined) await addID(write, CLIENT_IDS, clientID);
  if (previous?.headHash !== record.headHash) await write.setHead(clientHead(clientID), record.headHash);
  if (previous?.tempRefreshHash !== record.tempRefreshHash) {
    if (record.tempRefreshHash === null) await write.removeHead(refreshHead(clientID));
    else await write.setHead(refreshHead(clientID), record.tempRefreshHash);
  }
  await write.putMeta(clientKey(clientID), record as unknown as ReadonlyJSONValue);
}

export async function deleteClient(write: PersistentDagWrite, clientID: string): Promise<void> {
  await removeID(write, CLIENT_IDS, clientID);
  await write.removeHead(clientHead(clientID));
  await write.removeHead(refreshHead(clientID));
  await write.delMeta(clientKey(clientID));
}

/** Stores a client-group record and moves its head with it. */
export async function writeGroup(
  write: PersistentDagWrite,
  clientGroupID: string,
  record: ClientGroupRecord,
  previous: ClientGroupRecord | undefined,
): Promise<void> {
  if (previous === undefined) await addID(write, GROUP_IDS, clientGroupID);
  if (previous?.headHash !== record.headHash) await write.setHead(groupHead(clientGroupID), record.headHash);
  await write.putMeta(groupKey(clientGroupID), record as unknown as ReadonlyJSONValue);
}

export async function deleteGroup(write: PersistentDagWrite, clientGroupID: string): Promise<void> {
  await removeID(write, GROUP_IDS, clientGroupID);
  await write.removeHead(groupHead(clientGroupID));
  await write.delMeta(groupKey(clientGroupID));
  await deleteGroupChain(write, clientGroupID);
}

/** Whether a group holds mutations the server has not acknowledged. */
export function hasPendingMutations(group: ClientGroupRecord): boolean {
  for (const [clientID, id] of Object.entries(group.mutationIDs)) {
    if (id > (group.lastServerAckdMutationIDs[clientID] ?? 0)) return true;
  }
  return false;
}

/** Marks a group disabled ('Client group {id} is unknown on server'): no client joins it again. */
export function disableGroup(perdag: PersistentDagStore, clientGroupID: string): Promise<void> {
  return perdag.withWrite(async (w) => {
    const group = await readGroup(w, clientGroupID);
    if (group === undefined || group.disabled) return;
    await writeGroup(w, clientGroupID, { ...group, disabled: true }, group);
    await w.commit();
  });
}
