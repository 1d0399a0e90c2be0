import { decrementCount } from './counts';
import { once } from './once';
import type { Clock } from './clock';
import { ClientError } from './errors';
import type { Storage } from './storage/types';

export interface RoomQuotaOptions {
  /** Rooms stored in total; connects that would create more are refused. */
  readonly maxRooms: number;
  /** Rooms one user may create per window. */
  readonly roomsPerUser: number;
  /** Rooms one client address may create per window. */
  readonly roomsPerAddress: number;
  readonly windowMs: number;
}

/**
 * A creation that `RoomQuota.claim` allowed. The caller stores the room and
 * then settles the claim once: `settle(true)` when it stored a new room,
 * `settle(false)` when it did not (the storage failed, or the room already
 * existed), which gives the user's and the address's slot back. Settling
 * again does nothing.
 */
export interface RoomClaim {
  settle(created: boolean): void;
}

/**
 * The per-user and per-address windows of room creations: `take` counts one
 * creation by `userID` from `address` and answers how to give it back, or
 * the reason it is refused. Local ones are kept by this process; the room
 * processes of the CLI share their acceptor's.
 */
export interface RoomWindows {
  take(userID: string, address: string): (() => void) | string | Promise<(() => void) | string>;
}

export interface RoomWindowLimits {
  readonly roomsPerUser: number;
  readonly roomsPerAddress: number;
  readonly windowMs: number;
}

/** Windows kept in this process. */
export class LocalRoomWindows implements RoomWindows {
  private windowStart: number;
  /** Which window the maps count; a creation from an earlier window gives nothing back to them. */
  private window = 0;
  private readonly byUser = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: RoomWindowLimits,
  ) {
    this.windowStart = clock.now();
  }

  take(userID: string, address: string): (() => void) | string {
    const now = this.clock.now();
    if (now - this.windowStart >= this.limits.windowMs) {
      this.windowStart = now;
      this.window++;
      this.byUser.clear();
      this.byAddress.clear();
    }
    const users = this.byUser.get(userID) ?? 0;
    const addresses = this.byAddress.get(address) ?? 0;
    if (users >= this.limits.roomsPerUser) return `user ${userID} created ${users} rooms recently (limit ${this.limits.roomsPerUser})`;
    if (addresses >= this.limits.roomsPerAddress) return `this address created ${addresses} rooms recently (limit ${this.limits.roomsPerAddress})`;
    this.byUser.set(userID, users + 1);
    this.byAddress.set(address, addresses + 1);
    const window = this.window;
    return once(() => {
      if (window !== this.window) return;
      decrementCount(this.byUser, userID);
      decrementCount(this.byAddress, address);
    });
  }
}

/**
 * Limits on rooms created by connecting to a room that does not exist yet.
 *
 * A claim is atomic within this process, also when the storage's
 * `countRooms` really waits (PostgreSQL): the user's and the address's slots
 * are taken before the count is awaited, and every creation allowed but not
 * yet stored is counted against `maxRooms` by the claims after it, so
 * concurrent connects cannot pass a limit together.
 *
 * The per-user and per-address windows are kept per process (the CLI's
 * room processes share their acceptor's): with several nodes on one storage,
 * each node allows `roomsPerUser` and `roomsPerAddress` on its own.
 * `maxRooms` is checked against the shared storage, but a process does not
 * see the creations in flight in the others, so connects to several nodes
 * (or room processes) at the same moment can together pass it by the number
 * of creations in flight elsewhere.
 */
export class RoomQuota {
  private readonly windows: RoomWindows;
  /** Creations allowed and not yet settled: rooms the storage may not count yet. */
  private admitted = 0;
  /** Creations settled as stored, ever (a claim counts the ones settled while it awaited the storage's count). */
  private created = 0;

  constructor(
    private readonly storage: Storage,
    clock: Clock,
    private readonly options: RoomQuotaOptions,
    windows?: RoomWindows,
  ) {
    this.windows = windows ?? new LocalRoomWindows(clock, options);
  }

  /**
   * Counts one creation by `userID` from `address`, or throws ClientError
   * when a limit is reached. The answer must be settled once the room was
   * stored (or was not): see RoomClaim.
   */
  async claim(roomID: string, userID: string, address: string): Promise<RoomClaim> {
    const refuse = (why: string) => new ClientError('InvalidConnectionRequest', `Room ${roomID} does not exist and cannot be created: ${why}`);
    const createdBefore = this.created;
    // Taken (in take's synchronous part) before the count is awaited, so the claims that start while this one waits see it.
    const giveBack = await this.windows.take(userID, address);
    if (typeof giveBack === 'string') throw refuse(giveBack);
    let stored: number;
    try {
      stored = await this.storage.countRooms();
    } catch (error) {
      giveBack();
      throw error;
    }
    // Rooms the count may miss: allowed and not stored yet, or stored while the count was under way.
    const unseen = this.admitted + (this.created - createdBefore);
    if (stored + unseen >= this.options.maxRooms) {
      giveBack();
      throw refuse(`the server holds its limit of ${this.options.maxRooms} rooms`);
    }
    this.admitted++;
    let settled = false;
    return {
      settle: (created) => {
        if (settled) return;
        settled = true;
        this.admitted--;
        if (created) this.created++;
        else giveBack();
      },
    };
  }
}
