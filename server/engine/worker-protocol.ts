import type { PushBody } from '../../src/protocol';
import type { RoomChanges, StoredRoom } from '../storage/types';
import type { BatchRequest, ClientBinding, ConnectRequest, HostBatchRequest } from './engine-types';

/** What a worker needs to run rooms. */
export interface WorkerSetup {
  /** URL of a module whose export `mutatorsExport` holds the app's mutators. */
  readonly mutatorsURL: string | undefined;
  readonly mutatorsExport: string;
  readonly maxMutationsPerPush: number;
  readonly maxTombstones: number;
  readonly maxRoomBytes: number;
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
    pushes: request.pushes.map((p) => ('push' in p ? p : { conn: p.conn, auth: p.auth, push: (JSON.parse(p.frame) as [string, PushBody])[1] })),
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
