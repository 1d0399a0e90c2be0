import type { BatchRequest, ClientBinding, ConnectRequest } from './engine-types';
import type { RoomChanges, StoredRoom } from '../storage/types';

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
  | { readonly id: number; readonly op: 'batch'; readonly roomID: string; readonly request: BatchRequest }
  | { readonly id: number; readonly op: 'pull'; readonly roomID: string; readonly clientGroupID: string; readonly cookie: number | null }
  | { readonly id: number; readonly op: 'apply'; readonly roomID: string; readonly changes: RoomChanges }
  | { readonly id: number; readonly op: 'since'; readonly roomID: string; readonly cookie: number; readonly clientGroupIDs: readonly string[] }
  | { readonly id: number; readonly op: 'stats'; readonly roomID: string };

export type WorkerResponse =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: { readonly name: string; readonly message: string; readonly lost: boolean } };
