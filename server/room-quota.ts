import { decrementCount } from './counts';
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
 * Limits on rooms created by connecting to a room that does not exist yet.
 *
 * A claim is atomic within this process, also when the storage's
 * `countRooms` really waits (PostgreSQL): the user's and the address's slots
 * are taken before the count is awaited, and every creation allowed but not
 * yet stored is counted against `maxRooms` by the claims after it, so
 * concurrent connects cannot pass a limit together.
 *
 * The per-user and per-address windows are kept per process: with several
 * nodes on one storage, each node allows `roomsPerUser` and
 * `roomsPerAddress` on its own. `maxRooms` is checked against the shared
 * storage, but a node does not see the creations in flight on the others,
 * so connects to several nodes at the same moment can together pass it by
 * the number of creations in flight on the other nodes.
 */
export class RoomQuota {
  private windowStart: number;
  /** Which window the maps count; a claim from an earlier window gives nothing back to them. */
  private window = 0;
  private readonly byUser = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();
  /** Creations allowed and not yet settled: rooms the storage may not count yet. */
  private admitted = 0;
  /** Creations settled as stored, ever (a claim counts the ones settled while it awaited the storage's count). */
  private created = 0;

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly options: RoomQuotaOptions,
  ) {
    this.windowStart = clock.now();
  }

  /**
   * Counts one creation by `userID` from `address`, or throws ClientError
   * when a limit is reached. The answer must be settled once the room was
   * stored (or was not): see RoomClaim.
   */
  async claim(roomID: string, userID: string, address: string): Promise<RoomClaim> {
    const now = this.clock.now();
    if (now - this.windowStart >= this.options.windowMs) {
      this.windowStart = now;
      this.window++;
      this.byUser.clear();
      this.byAddress.clear();
    }
    const refuse = (why: string) => new ClientError('InvalidConnectionRequest', `Room ${roomID} does not exist and cannot be created: ${why}`);
    const users = this.byUser.get(userID) ?? 0;
    const addresses = this.byAddress.get(address) ?? 0;
    if (users >= this.options.roomsPerUser) throw refuse(`user ${userID} created ${users} rooms recently (limit ${this.options.roomsPerUser})`);
    if (addresses >= this.options.roomsPerAddress) throw refuse(`this address created ${addresses} rooms recently (limit ${this.options.roomsPerAddress})`);
    // Taken before the await, so the claims that start while this one waits see it.
    this.byUser.set(userID, users + 1);
    this.byAddress.set(address, addresses + 1);
    const window = this.window;
    const giveBack = () => {
      if (window !== this.window) return;
      decrementCount(this.byUser, userID);
      decrementCount(this.byAddress, address);
    };
    const createdBefore = this.created;
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
