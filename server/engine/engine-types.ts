import type { ErrorKind, PushBody } from '../../src/protocol';
import type { AuthData } from '../auth/auth';
import type { SpinWaitStats } from './spin-wait';
import type { PresenceChange } from '../presence/presence-change';
import type { BatchCommit, RoomChanges, StoredRoom } from '../storage/types';

/** A connect request as the room checks it. */
export interface ConnectRequest {
  readonly clientID: string;
  readonly clientGroupID: string;
  readonly userID: string;
  /** Whose budget of new clients a new client id takes (see NewClientBudget); default the user. */
  readonly budgetKey?: string;
  readonly baseCookie: number | null;
  readonly lmid: number;
}

/** The catch-up poke's parts; the patch is JSON text, encoded once. */
export interface CatchUp {
  readonly baseCookie: number | null;
  readonly cookie: number;
  readonly lastMutationIDChanges: Record<string, number>;
  readonly patchJSON: string;
}

export type ConnectAnswer =
  | { readonly ok: true; readonly catchUp: CatchUp | undefined }
  | { readonly ok: false; readonly kind: ErrorKind; readonly message: string };

/** One push of a batch, with the connection it came on (by number) and who pushed. */
export interface PushInput {
  readonly conn: number;
  readonly auth: AuthData;
  /** Whose budget of new clients the push's new client ids take (see NewClientBudget); default the user. */
  readonly budgetKey?: string;
  readonly push: PushBody;
}

/**
 * A push as a host is handed it: its body, or, for a host that takes frames
 * (one that runs the room in another thread: one string is cheaper to pass
 * than the parsed body), the text of the frame it was decoded from
 * (JSON.parse(frame)[1] is the body the socket handler validated).
 */
export type HostPush = PushInput | { readonly conn: number; readonly auth: AuthData; readonly budgetKey?: string; readonly frame: string };

/** Where a mutation sits in a batch request. */
export interface MutationPlace {
  readonly push: number;
  readonly mutation: number;
}

export interface BatchRequest {
  readonly pushes: readonly PushInput[];
  /** Mutations that timed out on an earlier run of this batch: skipped, counted as processed. */
  readonly timedOut: readonly MutationPlace[];
  /** Joins and leaves to write with the batch, before its pushes. */
  readonly presence?: readonly PresenceChange[];
}

/** A batch request as a host is handed it (see HostPush). */
export interface HostBatchRequest extends Omit<BatchRequest, 'pushes'> {
  readonly pushes: readonly HostPush[];
}

/** A mutation that was skipped, for the (rate-limited) log. */
export interface FailedMutation {
  readonly clientID: string;
  readonly mutationID: number;
  readonly name: string;
  readonly userID: string;
  readonly error: { readonly name: string; readonly message: string };
}

export interface BatchResult {
  /** Connections whose push was refused: they get the error and are closed. */
  readonly failures: readonly { readonly conn: number; readonly kind: ErrorKind; readonly message: string }[];
  /** What to store before poking; undefined when no mutation was new. */
  readonly commit: BatchCommit | undefined;
  /** JSON text of the patch operations (the same for every receiver). */
  readonly patchJSON: string;
  /** clientGroupID → clientID → last mutation id, for the groups that changed. */
  readonly changesByGroup: Readonly<Record<string, Record<string, number>>>;
  readonly mutations: number;
  /** Skipped mutations: all of them counted, the first few described. */
  readonly failedCount: number;
  readonly failed: readonly FailedMutation[];
}

export interface PullAnswer {
  readonly cookie: number;
  readonly lastMutationIDChanges: Record<string, number>;
  /** The user the group belongs to, when one of its clients is bound to one (only that user's connections are answered). */
  readonly user?: string;
}

/** A poke's parts that take every connection of a room from one version to another. */
export interface RoomDelta {
  readonly version: number;
  readonly patchJSON: string;
  /** clientGroupID → clientID → last mutation id. */
  readonly changesByGroup: Readonly<Record<string, Record<string, number>>>;
}

export interface RoomStats {
  readonly version: number;
  readonly keys: number;
  readonly tombstones: number;
  readonly clients: number;
  readonly bytes: number;
}

/**
 * Runs rooms: in this thread or in worker threads. Every call may reject with
 * EngineLostError (the room's state is gone: reopen it from storage and retry).
 */
/** A client bound at connect whose binding is not stored yet: kept across a reload of the room's state. */
export interface ClientBinding {
  readonly clientID: string;
  readonly clientGroupID: string;
  readonly userID: string;
}

export interface OpenReport {
  readonly unservable: readonly string[];
}

export interface EngineHost {
  /** Loads a room's state; answers the keys of stored values it will not serve (deeper than any client accepts). */
  open(roomID: string, stored: StoredRoom, bindings?: readonly ClientBinding[]): Promise<OpenReport>;
  /** Forgets the room's state (after a failed commit, a delete, or when it went idle). */
  close(roomID: string): void;
  connect(roomID: string, request: ConnectRequest): Promise<ConnectAnswer>;
  batch(roomID: string, request: HostBatchRequest): Promise<BatchResult>;
  pull(roomID: string, clientGroupID: string, cookie: number | null): Promise<PullAnswer>;
  /** Brings the room's state up to what another node stored; answers the poke that takes connections across. */
  apply(roomID: string, changes: RoomChanges): Promise<RoomDelta>;
  /** The poke from `cookie` to the room's version, with the last mutation ids of `clientGroupIDs`. */
  since(roomID: string, cookie: number, clientGroupIDs: readonly string[]): Promise<RoomDelta>;
  stats(roomID: string): Promise<RoomStats>;
  /**
   * A push for the room is being read: a host that runs the room in another
   * thread may get that thread ready to take it (a hint; nothing changes).
   */
  prewake?(roomID: string): void;
  /** Whether a push is better handed over as the text of its frame than as its body (see HostPush); the caller then keeps only the text. */
  readonly takesFrames?: boolean;
  /** Time spent turning event loops to take other threads' messages sooner, where the host does (admin stats). */
  spinStats?(): SpinWaitStats;
  shutdown(): Promise<void>;
}

/** The state of a room is gone (not open, or its worker was stopped); `timedOut` names the mutation that was stuck. */
export class EngineLostError extends Error {
  readonly kind = 'EngineLost';
  override readonly name = 'EngineLostError';
  constructor(
    readonly roomID: string,
    reason: string,
    readonly timedOut?: MutationPlace,
  ) {
    super(`Room ${roomID} must be reloaded: ${reason}`);
  }
}
