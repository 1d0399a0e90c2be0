import type { PushBody } from '../../src/protocol';
import type { AuthData } from '../auth/auth';
import type { PresenceChange } from '../presence/presence-change';
import type { BatchCommit, RoomChanges, StoredClient, StoredEntry, StoredRoom } from '../storage/types';
import type { BatchRequest, BatchResult, ClientBinding, ConnectRequest, HostBatchRequest, HostPush, MutationPlace, PushInput } from './engine-types';
import { ownRecord, setOwn } from './own-record';

/** What a worker needs to run rooms. */
export interface WorkerSetup {
  /** URL of a module whose export `mutatorsExport` holds the app's mutators. */
  readonly mutatorsURL: string | undefined;
  readonly mutatorsExport: string;
  readonly maxMutationsPerPush: number;
  readonly maxTombstones: number;
  readonly maxRoomBytes: number;
  readonly newClientsPerUser: number;
  readonly sliceMs: number;
  readonly roomBudgetMs: number;
  readonly budgetWindowMs: number;
  /** The shared board the worker marks its running mutation on (Int32, BOARD_SLOTS). */
  readonly board: SharedArrayBuffer;
  /** Where the worker keeps the milliseconds it has spent turning its event loop for wakes (Float64, one slot). */
  readonly turned: SharedArrayBuffer;
}

/** The batch request a room runs, its pushes handed over as frames parsed (the request itself when none was). */
export function unwireBatch(request: HostBatchRequest): BatchRequest {
  if (request.pushes.every((p) => 'push' in p)) return request as BatchRequest;
  return {
    ...request,
    pushes: request.pushes.map((p) => ('push' in p ? p : { conn: p.conn, auth: p.auth, ...budgetOf(p), push: (JSON.parse(p.frame) as [string, PushBody])[1] })),
  };
}

export type WorkerRequest =
  | {
      readonly id: number;
      readonly op: 'open';
      readonly roomID: string;
      readonly roomNumber: number;
      readonly stored: StoredRoom;
      readonly bindings: readonly ClientBinding[];
    }
  | { readonly id: number; readonly op: 'close'; readonly roomID: string }
  | { readonly id: number; readonly op: 'connect'; readonly roomID: string; readonly request: ConnectRequest }
  | { readonly id: number; readonly op: 'batch'; readonly roomID: string; readonly request: HostBatchRequest }
  | { readonly id: number; readonly op: 'pull'; readonly roomID: string; readonly clientGroupID: string; readonly cookie: number | null }
  | { readonly id: number; readonly op: 'apply'; readonly roomID: string; readonly changes: RoomChanges }
  | { readonly id: number; readonly op: 'since'; readonly roomID: string; readonly cookie: number; readonly clientGroupIDs: readonly string[] }
  | { readonly id: number; readonly op: 'stats'; readonly roomID: string };

/** Sent alone (not in a request list): a request is due soon, keep the event loop turning for it (see HotLoop). */
export const WAKE = 'wake';


export type WorkerResponse =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: { readonly name: string; readonly message: string; readonly lost: boolean } };

/**
 * A batch request and its result, the messages of every push, cross between
 * threads as flat arrays of strings, numbers and the few objects they carry
 * (auth, presence changes, refusals): a structured clone pays per object and
 * per property on both threads, and a batch's nested request and result are
 * most of what it clones (one push: ~5 µs less per round trip, measured back
 * to back between two threads). Every other message goes as it is.
 */
const BATCH_REQUEST = 'batch';
const BATCH_RESULT = 'batch-result';

/** A batch request on the wire: tag, id, roomID, timed-out places (push, mutation pairs), presence or 0, then conn, auth, budget key or 0, frame or body per push. */
export type BatchRequestWire = readonly [typeof BATCH_REQUEST, number, string, readonly number[], readonly PresenceChange[] | 0, ...(number | AuthData | string | PushBody)[]];

/**
 * A batch result on the wire: tag, id, mutations, failedCount, patchJSON,
 * the commit's [baseVersion, version, tombstoneHorizon or null, presenceOnly 1/0]
 * or 0, its entries as key, json or null, version; its clients as clientID,
 * clientGroupID, lastMutationID, userID or null; changesByGroup as group,
 * client, id; then the refusals and the failed mutations (0 when none).
 */
export type BatchResultWire = readonly [
  typeof BATCH_RESULT,
  number,
  number,
  number,
  string,
  readonly [number, number, number | null, 0 | 1] | 0,
  readonly (string | number | null)[],
  readonly (string | number | null)[],
  readonly (string | number)[],
  BatchResult['failures'] | 0,
  BatchResult['failed'] | 0,
];

function budgetOf(p: { readonly budgetKey?: string }): { budgetKey?: string } {
  return p.budgetKey === undefined ? {} : { budgetKey: p.budgetKey };
}

export function isBatchRequestWire(m: unknown): m is BatchRequestWire {
  return Array.isArray(m) && m[0] === BATCH_REQUEST;
}

export function isBatchResultWire(m: unknown): m is BatchResultWire {
  return Array.isArray(m) && m[0] === BATCH_RESULT;
}

export function wireBatchRequest(id: number, roomID: string, request: HostBatchRequest): BatchRequestWire {
  const timedOut: number[] = [];
  for (const t of request.timedOut) timedOut.push(t.push, t.mutation);
  const wire: [typeof BATCH_REQUEST, number, string, number[], readonly PresenceChange[] | 0, ...(number | AuthData | string | PushBody)[]] = [BATCH_REQUEST, id, roomID, timedOut, request.presence ?? 0];
  for (const p of request.pushes) wire.push(p.conn, p.auth, p.budgetKey ?? 0, 'frame' in p ? p.frame : p.push);
  return wire;
}

export function unwireBatchRequest(wire: BatchRequestWire): Extract<WorkerRequest, { op: 'batch' }> {
  const [, id, roomID, flatTimedOut, presence] = wire;
  const timedOut: { push: number; mutation: number }[] = [];
  for (let i = 0; i < flatTimedOut.length; i += 2) timedOut.push({ push: flatTimedOut[i]!, mutation: flatTimedOut[i + 1]! });
  const pushes: HostPush[] = [];
  for (let i = 5; i < wire.length; i += 4) {
    const conn = wire[i] as number;
    const auth = wire[i + 1] as AuthData;
    const budget = wire[i + 2] === 0 ? {} : { budgetKey: wire[i + 2] as string };
    const item = wire[i + 3] as string | PushBody;
    pushes.push(typeof item === 'string' ? { conn, auth, ...budget, frame: item } : { conn, auth, ...budget, push: item });
  }
  return { id, op: 'batch', roomID, request: presence === 0 ? { pushes, timedOut } : { pushes, timedOut, presence } };
}

/**
 * Every field of a batch request and result the wire carries: a field added to HostBatchRequest, a push
 * (either kind of HostPush), MutationPlace, BatchResult, BatchCommit, StoredEntry or StoredClient fails to
 * compile here until the wire carries it too.
 */
const CARRIED: {
  readonly request: Record<keyof HostBatchRequest, true>;
  readonly push: Record<keyof PushInput | keyof Extract<HostPush, { readonly frame: string }>, true>;
  readonly place: Record<keyof MutationPlace, true>;
  readonly result: Record<keyof BatchResult, true>;
  readonly commit: Record<keyof BatchCommit, true>;
  readonly entry: Record<keyof StoredEntry, true>;
  readonly client: Record<keyof StoredClient, true>;
} = {
  request: { pushes: true, timedOut: true, presence: true },
  push: { conn: true, auth: true, budgetKey: true, push: true, frame: true },
  place: { push: true, mutation: true },
  result: { failures: true, commit: true, patchJSON: true, changesByGroup: true, mutations: true, failedCount: true, failed: true },
  commit: { baseVersion: true, version: true, entries: true, clients: true, tombstoneHorizon: true, presenceOnly: true },
  entry: { key: true, json: true, version: true },
  client: { clientID: true, clientGroupID: true, lastMutationID: true, userID: true },
};
void CARRIED;

export function wireBatchResult(id: number, result: BatchResult): BatchResultWire {
  const c = result.commit;
  const entries: (string | number | null)[] = [];
  const clients: (string | number | null)[] = [];
  const groups: (string | number)[] = [];
  if (c !== undefined) {
    for (const e of c.entries) entries.push(e.key, e.json ?? null, e.version);
    for (const cl of c.clients) clients.push(cl.clientID, cl.clientGroupID, cl.lastMutationID, cl.userID ?? null);
  }
  for (const group of Object.keys(result.changesByGroup)) {
    const ids = result.changesByGroup[group]!;
    for (const client of Object.keys(ids)) groups.push(group, client, ids[client]!);
  }
  const head = c === undefined ? 0 : ([c.baseVersion, c.version, c.tombstoneHorizon ?? null, c.presenceOnly === true ? 1 : 0] as const);
  return [
    BATCH_RESULT,
    id,
    result.mutations,
    result.failedCount,
    result.patchJSON,
    head,
    entries,
    clients,
    groups,
    result.failures.length === 0 ? 0 : result.failures,
    result.failed.length === 0 ? 0 : result.failed,
  ];
}

export function unwireBatchResult(wire: BatchResultWire): { readonly id: number; readonly value: BatchResult } {
  const [, id, mutations, failedCount, patchJSON, head, flatEntries, flatClients, groups, failures, failed] = wire;
  let commit: BatchCommit | undefined;
  if (head !== 0) {
    const entries: StoredEntry[] = [];
    for (let i = 0; i < flatEntries.length; i += 3) entries.push({ key: flatEntries[i] as string, json: (flatEntries[i + 1] as string | null) ?? undefined, version: flatEntries[i + 2] as number });
    const clients: StoredClient[] = [];
    for (let i = 0; i < flatClients.length; i += 4) {
      const [clientID, clientGroupID, lastMutationID, userID] = [flatClients[i] as string, flatClients[i + 1] as string, flatClients[i + 2] as number, flatClients[i + 3] as string | null];
      clients.push(userID === null ? { clientID, clientGroupID, lastMutationID } : { clientID, clientGroupID, lastMutationID, userID });
    }
    const [baseVersion, version, tombstoneHorizon, presenceOnly] = head;
    commit = {
      baseVersion,
      version,
      entries,
      clients,
      ...(tombstoneHorizon === null ? {} : { tombstoneHorizon }),
      ...(presenceOnly === 1 ? { presenceOnly: true } : {}),
    };
  }
  const changesByGroup: Record<string, Record<string, number>> = {};
  for (let i = 0; i < groups.length; i += 3) setOwn(ownRecord(changesByGroup, groups[i] as string), groups[i + 1] as string, groups[i + 2] as number);
  return { id, value: { failures: failures === 0 ? [] : failures, commit, patchJSON, changesByGroup, mutations, failedCount, failed: failed === 0 ? [] : failed } };
}
