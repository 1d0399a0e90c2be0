import { MemoryStorage } from '../storage/memory-storage';
import { RoomClosedError, StorageUnavailableError, type BatchCommit, type ClusterEvent, type RoomChanges, type RoomLock, type RoomState, type SharedStorage } from '../storage/types';

/**
 * A SharedStorage in memory whose database can be switched off (`down`):
 * then every call fails with StorageUnavailableError, as PostgreSQL's
 * storage does while the database is unreachable. For tests of a node's
 * behaviour without a database's own timing.
 */
export class FlakySharedStorage extends MemoryStorage implements SharedStorage {
  readonly shared = true;
  down = false;
  /** Calls refused because the storage was down. */
  refused = 0;

  private refuseWhenDown(): void {
    if (!this.down) return;
    this.refused++;
    throw new StorageUnavailableError('PostgreSQL is unavailable (switched off by the test)');
  }

  override async loadRoom(roomID: string) {
    this.refuseWhenDown();
    return super.loadRoom(roomID);
  }

  override async commitBatch(roomID: string, batch: BatchCommit): Promise<void> {
    this.refuseWhenDown();
    this.refuseInClosedRoom(roomID, [batch]);
    return super.commitBatch(roomID, batch);
  }

  override async commitBatches(roomID: string, batches: readonly BatchCommit[]): Promise<void> {
    this.refuseWhenDown();
    this.refuseInClosedRoom(roomID, batches);
    return super.commitBatches(roomID, batches);
  }

  /**
   * As PostgreSQL's gate: a closed room at the batches' base version refuses
   * them unless all are presence-only (a stale one is refused as stale).
   * Checked in the same synchronous step as the write, as the gate's row lock
   * makes it one step there.
   */
  private refuseInClosedRoom(roomID: string, batches: readonly BatchCommit[]): void {
    if (batches.length === 0 || batches.every((b) => b.presenceOnly === true)) return;
    const meta = this.roomMeta(roomID);
    if (meta?.closed === true && meta.version === batches[0]!.baseVersion) throw new RoomClosedError(roomID);
  }

  async changesSince(roomID: string, version: number): Promise<RoomChanges | undefined> {
    this.refuseWhenDown();
    const room = await super.loadRoom(roomID);
    if (room === undefined) return undefined;
    const full = version < room.meta.tombstoneHorizon;
    return { meta: room.meta, full, entries: room.entries.filter((e) => full || e.version > version), clients: full ? room.clients : [] };
  }

  async lockRoom(roomID: string, knownVersion: number): Promise<RoomLock | undefined> {
    const changes = await this.changesSince(roomID, knownVersion);
    if (changes === undefined) return undefined;
    return {
      changes,
      commit: (batch: BatchCommit) => this.commitBatch(roomID, batch),
      release: async () => {},
    };
  }

  async roomStates(roomIDs: readonly string[]): Promise<Map<string, RoomState>> {
    this.refuseWhenDown();
    const states = new Map<string, RoomState>();
    for (const id of roomIDs) {
      const room = await super.loadRoom(id);
      if (room !== undefined) states.set(id, { version: room.meta.version, closed: room.meta.closed });
    }
    return states;
  }

  async publish(_event: ClusterEvent): Promise<void> {}

  async listen(_onEvent: (event: ClusterEvent) => void): Promise<void> {}
}
