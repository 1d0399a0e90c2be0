import { Room, type RoomDeps } from './room';

/** The rooms held in memory, loaded from storage on first use. */
export class RoomRegistry {
  private readonly rooms = new Map<string, Promise<Room | undefined>>();

  constructor(private readonly deps: Omit<RoomDeps, 'onBroken'>) {}

  /** The room, loaded if needed; created first when `create` and it does not exist; else undefined. */
  get(roomID: string, create: boolean): Promise<Room | undefined> {
    const existing = this.rooms.get(roomID);
    if (existing !== undefined) return existing;
    const loading = this.load(roomID, create);
    this.rooms.set(roomID, loading);
    loading.then(
      (room) => {
        if (room === undefined && this.rooms.get(roomID) === loading) this.rooms.delete(roomID);
      },
      () => {
        if (this.rooms.get(roomID) === loading) this.rooms.delete(roomID);
      },
    );
    return loading;
  }

  /** The room if it is in memory (possibly still loading). */
  peek(roomID: string): Promise<Room | undefined> | undefined {
    return this.rooms.get(roomID);
  }

  /** Forgets a room held in memory (after it was deleted or broke). */
  forget(roomID: string, room?: Room): void {
    if (room === undefined) {
      this.rooms.delete(roomID);
      return;
    }
    const current = this.rooms.get(roomID);
    if (current !== undefined) void current.then((r) => r === room && this.rooms.get(roomID) === current && this.rooms.delete(roomID));
  }

  /** Every room in memory. */
  async loaded(): Promise<Room[]> {
    const rooms = await Promise.allSettled(this.rooms.values());
    return rooms.flatMap((r) => (r.status === 'fulfilled' && r.value !== undefined ? [r.value] : []));
  }

  private async load(roomID: string, create: boolean): Promise<Room | undefined> {
    let stored = await this.deps.storage.loadRoom(roomID);
    if (stored === undefined) {
      if (!create) return undefined;
      await this.deps.storage.createRoom(roomID, this.deps.clock.now());
      stored = await this.deps.storage.loadRoom(roomID);
      if (stored === undefined) return undefined;
    }
    return Room.fromStored(stored, { ...this.deps, onBroken: (room) => this.forget(roomID, room) });
  }
}
