/** What the server keeps about a room besides its data. */
export interface RoomMeta {
  readonly roomID: string;
  readonly version: number;
  readonly closed: boolean;
  readonly tombstoneHorizon: number;
  readonly createdAt: number;
}

export interface StoredEntry {
  readonly key: string;
  /** The value as JSON text (kept as text so object key order survives); undefined: a tombstone. */
  readonly json: string | undefined;
  readonly version: number;
}

export interface StoredClient {
  readonly clientID: string;
  readonly clientGroupID: string;
  readonly lastMutationID: number;
  /** The user the client is bound to (undefined in records from before clients were bound). */
  readonly userID?: string | undefined;
}

/** A room as loaded at startup of its in-memory state. */
export interface StoredRoom {
  readonly meta: RoomMeta;
  readonly entries: readonly StoredEntry[];
  readonly clients: readonly StoredClient[];
}

/** One processed batch: everything it changed, written atomically. */
export interface BatchCommit {
  /**
   * The room version the batch ran against. A storage refuses the commit
   * (StaleRoomError) when the stored version is another: the in-memory room
   * is a cache, valid only while its version is the stored one.
   */
  readonly baseVersion: number;
  readonly version: number;
  /** Written keys; a tombstone when `value` is undefined. */
  readonly entries: readonly StoredEntry[];
  /** Clients whose last mutation id or group binding changed. */
  readonly clients: readonly StoredClient[];
  /** When set, tombstones with version <= this are dropped and it becomes the room's horizon. */
  readonly tombstoneHorizon?: number;
  /**
   * The batch acknowledges no mutation (no client's last mutation id moved):
   * only presence changes (and clients bound at connect). A shared storage
   * refuses any other batch in a closed room (RoomClosedError) when it
   * commits without the room's lock.
   */
  readonly presenceOnly?: boolean;
}

/** Throws unless each batch's baseVersion is the version of the one before it (commitBatches). */
export function checkConsecutive(batches: readonly BatchCommit[]): void {
  for (let i = 1; i < batches.length; i++) {
    if (batches[i]!.baseVersion !== batches[i - 1]!.version) throw new Error(`Batch ${i} of a group is based on version ${batches[i]!.baseVersion}, not ${batches[i - 1]!.version}`);
  }
}

/** The stored room moved on (another writer): reload it before running anything more. */
export class StaleRoomError extends Error {
  readonly kind = 'StaleRoom';
  override readonly name = 'StaleRoomError';
  constructor(
    readonly roomID: string,
    readonly expectedVersion: number,
  ) {
    super(`Room ${roomID} is no longer at version ${expectedVersion} in storage`);
  }
}

/**
 * The room was closed (by another node, whose notification may not have
 * arrived): a batch that acknowledges mutations is not written. The room's
 * connections end with RoomClosed.
 */
export class RoomClosedError extends Error {
  readonly kind = 'RoomClosed';
  override readonly name = 'RoomClosedError';
  constructor(readonly roomID: string) {
    super(`Room ${roomID} is closed in storage`);
  }
}

/**
 * What changed in a stored room after a version, read in one snapshot: the
 * entries (tombstones too) and clients written after it, or, when that
 * version is older than the room's tombstone horizon (deletions since were
 * forgotten), every entry and client (`full`).
 */
export interface RoomChanges {
  readonly meta: RoomMeta;
  readonly full: boolean;
  readonly entries: readonly StoredEntry[];
  readonly clients: readonly StoredClient[];
}

/** The storage could not be reached (or gave up on a lock): nothing was written; try again later. */
export class StorageUnavailableError extends Error {
  readonly kind = 'StorageUnavailable';
  override readonly name = 'StorageUnavailableError';
}

/**
 * Where rooms live. Async so that a networked implementation (e.g.
 * PostgreSQL, for several server processes) can follow. `commitBatch` must be
 * durable when its promise resolves: the server pokes clients only after that.
 */
export interface Storage {
  listRooms(): Promise<RoomMeta[]>;
  countRooms(): Promise<number>;
  /** undefined when the room does not exist. */
  loadRoom(roomID: string): Promise<StoredRoom | undefined>;
  /** Creates the room at version 0; returns false when it already existed. */
  createRoom(roomID: string, createdAt: number): Promise<boolean>;
  /** Returns false when the room does not exist. */
  setRoomClosed(roomID: string, closed: boolean): Promise<boolean>;
  /** Removes the room and all of its data; returns false when it did not exist. */
  deleteRoom(roomID: string): Promise<boolean>;
  commitBatch(roomID: string, batch: BatchCommit): Promise<void>;
  /**
   * Consecutive batches of one room (each one's baseVersion the version of
   * the one before) written atomically, all or none, in one durable commit:
   * a room whose batches pile up while one is being stored stores them
   * together. Refused like commitBatch (StaleRoomError) when the room is not
   * at the first one's baseVersion. Optional: without it a room stores its
   * batches one by one.
   */
  commitBatches?(roomID: string, batches: readonly BatchCommit[]): Promise<void>;
  close(): Promise<void>;
}

/** A room's row held locked in an open transaction (a shared storage's batch). */
export interface RoomLock {
  /** What changed after the version the caller knew, read under the lock. */
  readonly changes: RoomChanges;
  /** Writes the batch, bumps the version, tells the other nodes, and commits; the lock is released. */
  commit(batch: BatchCommit): Promise<void>;
  /** Rolls back and releases the lock. */
  release(): Promise<void>;
}

/** What one node tells the others (a hint: each reads the truth from the storage). */
export type ClusterEvent =
  /** The room's row changed: a new version (when known), closed or opened, or deleted. */
  | { readonly kind: 'room'; readonly roomID: string; readonly version?: number }
  /** Connections matching every given field (all of them with `all`) must get AuthInvalidated. */
  | { readonly kind: 'invalidate'; readonly all: boolean; readonly userID?: string; readonly roomID?: string }
  /** Events may have been missed (the listener reconnected, or a poll is due): check every room held. */
  | { readonly kind: 'resync' };

/** A room's row: what a node compares with the rooms it holds. */
export interface RoomState {
  readonly version: number;
  readonly closed: boolean;
}

/**
 * A storage several server processes (nodes) share, e.g. PostgreSQL: the
 * database is the truth, a node's room state only a cache valid while its
 * version is the stored one. Batches run holding the room's lock; other nodes
 * learn of them through events and read what changed.
 */
export interface SharedStorage extends Storage {
  readonly shared: true;
  /** Locks the room's row in a new transaction; undefined when the room does not exist. */
  lockRoom(roomID: string, knownVersion: number): Promise<RoomLock | undefined>;
  /** undefined when the room does not exist. */
  changesSince(roomID: string, version: number): Promise<RoomChanges | undefined>;
  /** The rows of these rooms; a room missing from the answer was deleted. */
  roomStates(roomIDs: readonly string[]): Promise<Map<string, RoomState>>;
  /** Tells the other nodes (never this one). */
  publish(event: ClusterEvent): Promise<void>;
  /** Starts delivering other nodes' events (and `resync` when some may have been missed). */
  listen(onEvent: (event: ClusterEvent) => void): Promise<void>;
  /**
   * Records that node `nodeID` is alive now and answers every node whose
   * last beat is less than `staleAfterMs` old, by the storage's clock (this
   * one included). Without it, every node is taken to be alive.
   */
  beat?(nodeID: string, staleAfterMs: number): Promise<Set<string>>;
  /**
   * Records the rooms this node holds in memory now (its poll calls it), and
   * that the node is alive; rows of nodes not seen for `staleAfterMs` go.
   * With it, the storage hints a batch only to the other nodes holding its
   * room; a room counts as held from its loadRoom on.
   */
  holding?(roomIDs: readonly string[], staleAfterMs: number): Promise<void>;
  /** The live entries (not tombstones) of these rooms whose keys start with `prefix`: room id → entries. */
  entriesWithPrefix?(roomIDs: readonly string[], prefix: string): Promise<Map<string, StoredEntry[]>>;
}

export function isSharedStorage(storage: Storage): storage is SharedStorage {
  return (storage as Partial<SharedStorage>).shared === true;
}
