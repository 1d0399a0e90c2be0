import { reportUnservable, Room, type RoomDeps } from './room';
import type { RoomClaim } from './room-quota';

/** Allows creating a missing room by returning (a refusal throws); a RoomClaim returned is settled once the room was stored or not. */
export type CreateRoom = () => Promise<RoomClaim | void> | RoomClaim | void;

/**
 * The rooms held in memory: loaded from storage on first use, dropped when
 * their last connection left and nothing is queued (their state is stored).
 * Lookups of a loaded room answer from a plain map, so a room handed out
 * cannot be dropped before its caller queues its work on it.
 */
export class RoomRegistry {
  private readonly rooms = new Map<string, Room>();
  private readonly loading = new Map<string, Promise<Room | undefined>>();

  constructor(private readonly deps: Omit<RoomDeps, 'onBroken' | 'onIdle'>) {}

  /**
   * The room, loaded if needed; when it does not exist, created first if
   * `create` allows it (a function may refuse by throwing), else undefined.
   */
  get(roomID: string, create: false | CreateRoom): Promise<Room | undefined> {
    const room = this.rooms.get(roomID);
    if (room !== undefined) return Promise.resolve(room);
    const pending = this.loading.get(roomID);
    if (pending !== undefined) return pending.then((r) => r ?? this.get(roomID, create));
    const loading = this.load(roomID, create).finally(() => this.loading.delete(roomID));
    this.loading.set(roomID, loading);
    return loading;
  }

  /** The room if it is in memory, else undefined (a room still loading is waited for). */
  async peek(roomID: string): Promise<Room | undefined> {
    return this.rooms.get(roomID) ?? (await this.loading.get(roomID)?.catch(() => undefined));
  }

  /** The room if it is held in memory now (not one still loading: that one reads the storage anyway). */
  held(roomID: string): Room | undefined {
    return this.rooms.get(roomID);
  }

  /** The presence settings every room gets; undefined when presence is off. */
  get presence(): RoomDeps['presence'] {
    return this.deps.presence;
  }

  /** Every room held in memory now. */
  heldRooms(): Room[] {
    return [...this.rooms.values()];
  }

  /** Forgets a room held in memory (after it was deleted, broke or went idle). */
  forget(roomID: string, room?: Room): void {
    const current = this.rooms.get(roomID);
    if (current !== undefined && (room === undefined || current === room)) this.rooms.delete(roomID);
  }

  /** Every room in memory, after the ones loading now. */
  async loaded(): Promise<Room[]> {
    await Promise.allSettled(this.loading.values());
    return [...this.rooms.values()];
  }

  private async load(roomID: string, create: false | CreateRoom): Promise<Room | undefined> {
    const { storage, host } = this.deps;
    let stored = await storage.loadRoom(roomID);
    if (stored === undefined) {
      if (create === false) return undefined;
      const claim = await create();
      let created = false;
      try {
        created = await storage.createRoom(roomID, this.deps.clock.now());
      } finally {
        claim?.settle(created);
      }
      stored = await storage.loadRoom(roomID);
      if (stored === undefined) return undefined;
    }
    reportUnservable(this.deps.logger, roomID, await host.open(roomID, stored));
    const room = new Room(roomID, stored.meta.closed, {
      ...this.deps,
      onBroken: (r) => this.forget(roomID, r),
      onIdle: (r) => {
        r.retire();
        this.forget(roomID, r);
      },
    }, stored.meta.version);
    room.presence?.adopt(stored.entries);
    this.rooms.set(roomID, room);
    return room;
  }
}
