import { afterEach, describe, expect, it } from 'vitest';
import { ClientError } from './errors';
import { RoomQuota } from './room-quota';
import { MemoryStorage } from './storage/memory-storage';
import { uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

/** A storage whose countRooms answers the count of when it was asked, but only once `open()` is called (as a database answers later). */
class SlowCountStorage extends MemoryStorage {
  private waiting: (() => void)[] = [];
  asked = 0;
  override async countRooms(): Promise<number> {
    const n = await super.countRooms();
    this.asked++;
    await new Promise<void>((r) => this.waiting.push(r));
    return n;
  }
  open(): void {
    for (const r of this.waiting.splice(0)) r();
  }
  /** Answers the oldest count only. */
  openOne(): void {
    this.waiting.shift()?.();
  }
}

const clock = { now: () => 0 };
const limits = { maxRooms: 1000, roomsPerUser: 1000, roomsPerAddress: 1000, windowMs: 60_000 };

/** Starts every claim at once, lets the storage answer, stores the rooms of the claims allowed; the number allowed. */
async function claimAtOnce(quota: RoomQuota, storage: SlowCountStorage, who: (i: number) => [string, string], n = 50) {
  const refusals: unknown[] = [];
  const claims = Array.from({ length: n }, (_, i) =>
    quota.claim(`room-${i}`, ...who(i)).then(
      async (claim) => {
        claim.settle(await storage.createRoom(`room-${i}`, 0));
        return true;
      },
      (error: unknown) => {
        refusals.push(error);
        return false;
      },
    ),
  );
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r)); // every claim reached the count, or was refused
  storage.open();
  const allowed = (await Promise.all(claims)).filter(Boolean).length;
  for (const e of refusals) expect(e).toBeInstanceOf(ClientError);
  return allowed;
}

describe('RoomQuota under concurrent claims (a storage whose countRooms answers later)', () => {
  it('allows one user and one address no more than their limit', async () => {
    let storage = new SlowCountStorage();
    expect(await claimAtOnce(new RoomQuota(storage, clock, { ...limits, roomsPerUser: 5 }), storage, (i) => ['mallory', `10.0.0.${i}`])).toBe(5);
    storage = new SlowCountStorage();
    expect(await claimAtOnce(new RoomQuota(storage, clock, { ...limits, roomsPerAddress: 5 }), storage, (i) => [`user-${i}`, '10.0.0.1'])).toBe(5);
  });

  it('does not pass maxRooms, counting rooms allowed but not stored yet', async () => {
    const storage = new SlowCountStorage();
    await storage.createRoom('old', 0);
    const quota = new RoomQuota(storage, clock, { ...limits, maxRooms: 4 });
    expect(await claimAtOnce(quota, storage, (i) => [`user-${i}`, `10.0.0.${i}`])).toBe(3);
    expect((await storage.listRooms()).length).toBe(4);
  });

  it('counts a room stored while a claim awaited its count, which the count may have missed', async () => {
    const storage = new SlowCountStorage();
    const quota = new RoomQuota(storage, clock, { ...limits, maxRooms: 1 });
    const first = quota.claim('a', 'alice', '10.0.0.1');
    const second = quota.claim('b', 'bob', '10.0.0.2');
    second.catch(() => undefined);
    while (storage.asked < 2) await new Promise((r) => setImmediate(r));
    // Both counts were taken with no room stored; the first creation finishes before the second count answers.
    storage.openOne();
    (await first).settle(await storage.createRoom('a', 0));
    storage.openOne();
    await expect(second).rejects.toThrow(/holds its limit of 1 rooms/);
  });

  it('gives the slots back when the room was not created, or the count failed', async () => {
    const storage = new SlowCountStorage();
    const quota = new RoomQuota(storage, clock, { ...limits, roomsPerUser: 1 });
    const claimNow = (roomID: string) => {
      const claim = quota.claim(roomID, 'alice', '10.0.0.1');
      setImmediate(() => storage.open());
      return claim;
    };
    (await claimNow('a')).settle(false);
    const claim = await claimNow('b');
    claim.settle(true);
    claim.settle(false); // a second settle changes nothing
    await expect(claimNow('c')).rejects.toThrow(/user alice created 1 rooms recently \(limit 1\)/);
    const failing = new (class extends MemoryStorage {
      override async countRooms(): Promise<number> {
        throw new Error('storage down');
      }
    })();
    const q2 = new RoomQuota(failing, clock, { ...limits, roomsPerUser: 1 });
    await expect(q2.claim('a', 'bob', '10.0.0.2')).rejects.toThrow('storage down');
    await expect(q2.claim('a', 'bob', '10.0.0.2')).rejects.toThrow('storage down'); // not refused by the quota
  });
});

describe('room-creation quotas through concurrent connects', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  /** Connects `n` clients to new rooms at once while countRooms is held back; how many got in. */
  async function connectAtOnce(storage: SlowCountStorage, tokens: (i: number) => string, n = 30) {
    const clients = Array.from({ length: n }, (_, i) => t!.connect({ roomID: uniqueID('room'), token: tokens(i) }));
    // Until every connect reached the count or was refused: no new count for 200 ms.
    for (let asked = -1, still = 0; still < 10; still = storage.asked === asked ? still + 1 : 0, asked = storage.asked) await new Promise((r) => setTimeout(r, 20));
    storage.open();
    const outcomes = await Promise.all(clients.map((c) => c.until(() => c.closed || c.pokes.length > 0).then(() => !c.closed)));
    return outcomes.filter(Boolean).length;
  }

  it('holds --rooms-per-user and --max-rooms when the storage counts rooms asynchronously', async () => {
    let storage = new SlowCountStorage();
    t = await startTestServer({ storage, roomsPerUser: 5 });
    expect(await connectAtOnce(storage, () => 'mallory')).toBe(5);
    await t.close();
    storage = new SlowCountStorage();
    t = await startTestServer({ storage, maxRooms: 4 });
    expect(await connectAtOnce(storage, (i) => `user-${i}`)).toBe(4);
    expect((await storage.listRooms()).length).toBe(4);
  });

  it('gives a user their slot back when storing the room fails', async () => {
    let failures = 1;
    const storage = new (class extends MemoryStorage {
      override async createRoom(roomID: string, createdAt: number): Promise<boolean> {
        if (failures-- > 0) throw new Error('storage down');
        return super.createRoom(roomID, createdAt);
      }
    })();
    t = await startTestServer({ storage, roomsPerUser: 1 });
    const failed = t.connect({ roomID: uniqueID('room'), token: 'alice' });
    await failed.until(() => failed.closed);
    await t.connect({ roomID: uniqueID('room'), token: 'alice' }).ready();
  });
});
