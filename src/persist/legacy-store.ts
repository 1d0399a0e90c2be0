/**
 * Reading a store of format 1 (one store per tab slot, earlier releases):
 * its client group, its server cookie and the mutations it holds that the
 * server has not acknowledged (pending local commits of its 'main' head, and
 * write-ahead log entries beyond them), so they can be recovered and the
 * store cleaned up once nothing is left to push. Loaded lazily with
 * other-stores.ts: the start-up code it uses comes in a StoreKit.
 */
import type { ReadonlyJSONValue } from '../../protocol/json';
import type { Cookie } from '../db/commit';
import type { KvStore } from '../kv/types';
import type { PendingMutation } from '../sync/server-update';
import type { StoreKit } from './store-kit';

const GROUP_KEY = 'g/client-group';
const LOG_BOUNDS_KEY = 'g/log';
const logEntryKey = (seq: number) => `g/log/${seq}`;

export interface LegacyGroup {
  readonly clientGroupID: string;
  readonly disabled: boolean;
  readonly cookie: Cookie;
  /** What the server acknowledged per client (the snapshot's, raised by recovery). */
  readonly acked: Readonly<Record<string, number>>;
  /** Mutations not acknowledged, in order. */
  readonly pending: readonly PendingMutation[];
}

/** The group of a format-1 store, or undefined when it holds none. */
export async function readLegacyGroup(kit: StoreKit, dataKv: KvStore, logKv: KvStore | undefined): Promise<LegacyGroup | undefined> {
  const read = await dataKv.read();
  let record: ReadonlyJSONValue | undefined;
  try {
    record = await read.get(GROUP_KEY);
  } finally {
    read.release();
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const { clientGroupID, disabled, recoveredAcks } = record as Record<string, unknown>;
  if (typeof clientGroupID !== 'string' || clientGroupID === '') return undefined;

  const dag = new kit.PersistentDagStore(dataKv);
  const chain = await dag.withRead(async (r) => {
    const head = await kit.readHeadCommit(r, kit.MAIN_HEAD);
    return head === undefined ? undefined : kit.readChain(r, head);
  });
  const acked: Record<string, number> = { ...(chain?.snapshot.data.lastMutationIDs ?? {}) };
  if (typeof recoveredAcks === 'object' && recoveredAcks !== null) {
    for (const [clientID, id] of Object.entries(recoveredAcks)) if (typeof id === 'number') acked[clientID] = Math.max(acked[clientID] ?? 0, id);
  }
  const pending: PendingMutation[] = [];
  const last: Record<string, number> = { ...acked };
  const take = (m: PendingMutation) => {
    if (m.id !== (last[m.clientID] ?? 0) + 1) return;
    pending.push(m);
    last[m.clientID] = m.id;
  };
  for (const c of chain?.locals ?? []) {
    const d = c.data;
    take({ id: d.mutationID, clientID: d.clientID, name: d.mutatorName, args: d.mutatorArgs, timestamp: d.timestamp });
  }
  if (logKv !== undefined) for (const m of await readLegacyLog(logKv)) take(m);
  return { clientGroupID, disabled: disabled === true, cookie: chain?.snapshot.data.cookie ?? null, acked, pending };
}

/** Raises what the server acknowledged, as a recovery pull told (the store's chain is left as it is). */
export async function recordLegacyAcks(dataKv: KvStore, acks: Readonly<Record<string, number>>): Promise<void> {
  const write = await dataKv.write();
  try {
    const record = await write.get(GROUP_KEY);
    if (typeof record !== 'object' || record === null || Array.isArray(record)) return;
    const previous = (record as Record<string, unknown>).recoveredAcks;
    const merged: Record<string, number> = typeof previous === 'object' && previous !== null ? { ...(previous as Record<string, number>) } : {};
    for (const [clientID, id] of Object.entries(acks)) merged[clientID] = Math.max(merged[clientID] ?? 0, id);
    await write.put(GROUP_KEY, { ...(record as Record<string, ReadonlyJSONValue>), recoveredAcks: merged });
    await write.commit();
  } finally {
    write.release();
  }
}

/** Marks the store's group disabled (the server does not know it, or not its version). */
export async function recordLegacyDisabled(dataKv: KvStore): Promise<void> {
  const write = await dataKv.write();
  try {
    const record = await write.get(GROUP_KEY);
    if (typeof record !== 'object' || record === null || Array.isArray(record)) return;
    await write.put(GROUP_KEY, { ...(record as Record<string, ReadonlyJSONValue>), disabled: true });
    await write.commit();
  } finally {
    write.release();
  }
}

async function readLegacyLog(logKv: KvStore): Promise<PendingMutation[]> {
  const read = await logKv.read();
  try {
    const bounds = await read.get(LOG_BOUNDS_KEY);
    if (typeof bounds !== 'object' || bounds === null) return [];
    const { first, next } = bounds as Record<string, unknown>;
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(next)) return [];
    const out: PendingMutation[] = [];
    for (let seq = first as number; seq < (next as number); seq++) {
      const e = (await read.get(logEntryKey(seq))) as Record<string, unknown> | undefined;
      if (e && typeof e.clientID === 'string' && Number.isSafeInteger(e.id) && typeof e.name === 'string' && typeof e.timestamp === 'number') {
        out.push({ id: e.id as number, clientID: e.clientID, name: e.name, args: (e.args ?? null) as ReadonlyJSONValue, timestamp: e.timestamp });
      }
    }
    return out;
  } finally {
    read.release();
  }
}
