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

/** Limits on rooms created by connecting to a room that does not exist yet. */
export class RoomQuota {
  private windowStart: number;
  private readonly byUser = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly options: RoomQuotaOptions,
  ) {
    this.windowStart = clock.now();
  }

  /** Counts one creation by `userID` from `address`, or throws ClientError when a limit is reached. */
  async claim(roomID: string, userID: string, address: string): Promise<void> {
    const now = this.clock.now();
    if (now - this.windowStart >= this.options.windowMs) {
      this.windowStart = now;
      this.byUser.clear();
      this.byAddress.clear();
    }
    const refuse = (why: string) => new ClientError('InvalidConnectionRequest', `Room ${roomID} does not exist and cannot be created: ${why}`);
    const users = this.byUser.get(userID) ?? 0;
    const addresses = this.byAddress.get(address) ?? 0;
    if (users >= this.options.roomsPerUser) throw refuse(`user ${userID} created ${users} rooms recently (limit ${this.options.roomsPerUser})`);
    if (addresses >= this.options.roomsPerAddress) throw refuse(`this address created ${addresses} rooms recently (limit ${this.options.roomsPerAddress})`);
    if ((await this.storage.countRooms()) >= this.options.maxRooms) throw refuse(`the server holds its limit of ${this.options.maxRooms} rooms`);
    this.byUser.set(userID, users + 1);
    this.byAddress.set(address, addresses + 1);
  }
}
