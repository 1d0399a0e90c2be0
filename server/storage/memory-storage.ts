import { checkConsecutive, StaleRoomError, type BatchCommit, type RoomMeta, type Storage, type StoredClient, type StoredEntry, type StoredRoom } from './types';

interface MemoryRoom {
  meta: RoomMeta;
  entries: Map<string, StoredEntry>;
  clients: Map<string, StoredClient>;
}

/** Storage in process memory: for tests and throwaway servers. Nothing survives the process. */
export class MemoryStorage implements Storage {
  private readonly rooms = new Map<string, MemoryRoom>();
  private closed = false;

  async listRooms(): Promise<RoomMeta[]> {
    this.check();
    return [...this.rooms.values()].map((r) => r.meta);
  }

  async countRooms(): Promise<number> {
    this.check();
    return this.rooms.size;
  }

  async loadRoom(roomID: string): Promise<StoredRoom | undefined> {
    this.check();
    const r = this.rooms.get(roomID);
    if (r === undefined) return undefined;
    return { meta: r.meta, entries: [...r.entries.values()], clients: [...r.clients.values()] };
  }

  /** The room's meta as it is now, read in the caller's synchronous step. */
  protected roomMeta(roomID: string): RoomMeta | undefined {
    return this.rooms.get(roomID)?.meta;
  }

  async createRoom(roomID: string, createdAt: number): Promise<boolean> {
    this.check();
    if (this.rooms.has(roomID)) return false;
    const meta = { roomID, version: 0, closed: false, tombstoneHorizon: 0, createdAt };
    this.rooms.set(roomID, { meta, entries: new Map(), clients: new Map() });
    return true;
  }

  async setRoomClosed(roomID: string, closed: boolean): Promise<boolean> {
    this.check();
    const r = this.rooms.get(roomID);
    if (r === undefined) return false;
    r.meta = { ...r.meta, closed };
    return true;
  }

  async deleteRoom(roomID: string): Promise<boolean> {
    this.check();
    return this.rooms.delete(roomID);
  }

  async commitBatch(roomID: string, batch: BatchCommit): Promise<void> {
    this.write(roomID, [batch]);
  }

  async commitBatches(roomID: string, batches: readonly BatchCommit[]): Promise<void> {
    this.write(roomID, batches);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private write(roomID: string, batches: readonly BatchCommit[]): void {
    this.check();
    checkConsecutive(batches);
    const r = this.rooms.get(roomID);
    if (r === undefined) throw new Error(`Room ${roomID} does not exist`);
    if (batches.length === 0) return;
    if (r.meta.version !== batches[0]!.baseVersion) throw new StaleRoomError(roomID, batches[0]!.baseVersion);
    // Checked before anything is written: all or none.
    for (const batch of batches) apply(r, batch);
  }

  private check(): void {
    if (this.closed) throw new Error('MemoryStorage is closed');
  }
}

function apply(r: MemoryRoom, batch: BatchCommit): void {
  for (const e of batch.entries) r.entries.set(e.key, e);
  for (const c of batch.clients) r.clients.set(c.clientID, c);
  let horizon = r.meta.tombstoneHorizon;
  if (batch.tombstoneHorizon !== undefined) {
    horizon = Math.max(horizon, batch.tombstoneHorizon);
    for (const [k, e] of r.entries) if (e.json === undefined && e.version <= horizon) r.entries.delete(k);
  }
  r.meta = { ...r.meta, version: batch.version, tombstoneHorizon: horizon };
}
