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
  close(): Promise<void>;
}
