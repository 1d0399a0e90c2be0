import { afterEach, describe, expect, it } from 'vitest';
import type { ReadonlyJSONValue } from '../../protocol/json';
import type { WriteTransaction } from '../../src/db/transaction-types';
import type { PushBody } from '../../src/protocol';
import { conformanceMutators } from '../conformance-mutators';
import type { StoredRoom } from '../storage/types';
import type { MutationGuard } from './mutation-guard';
import { RoomPacer, ThreadPace } from './pacer';
import { RoomEngine } from './room-engine';

const stored: StoredRoom = { meta: { roomID: 'r', version: 0, closed: false, tombstoneHorizon: 0, createdAt: 0 }, entries: [], clients: [] };
const guard: MutationGuard = { run: (_place, _mutation, call) => call() };
const pace = new ThreadPace({ now: () => 0, defer: (resume) => resume() }, { sliceMs: 1000, roomBudgetMs: 1000, windowMs: 1000 });
const auth = { userID: 'u', claims: {} };

function engine(): RoomEngine {
  return new RoomEngine('r', stored, [], { mutators: conformanceMutators, maxMutationsPerPush: 100, maxTombstones: 100, maxRoomBytes: 1e6, newClientsPerUser: 1000 }, guard, new RoomPacer(pace));
}

function push(clientGroupID: string, clientID: string, id: number): PushBody {
  return { timestamp: 0, clientGroupID, mutations: [{ id, clientID, name: 'increment', args: { key: 'n', delta: 1 }, timestamp: 0 }], pushVersion: 1, schemaVersion: '1', requestID: `r${id}` };
}

afterEach(() => {
  // What a polluted prototype would have gained: removed so one failure does not spread to other tests.
  for (const name of ['c', 'x']) {
    delete (Object.prototype as Record<string, unknown>)[name];
    delete (Object as unknown as Record<string, unknown>)[name];
    delete (Object.prototype.toString as unknown as Record<string, unknown>)[name];
  }
});

describe('RoomEngine with ids that are also names of Object.prototype', () => {
  it('acknowledges the clients of a group named "__proto__" under that group, without touching Object.prototype', async () => {
    const e = engine();
    expect(e.connect({ clientID: 'c', clientGroupID: '__proto__', userID: 'u', baseCookie: null, lmid: 0 }).ok).toBe(true);
    const result = await e.batch({ pushes: [{ conn: 0, auth, push: push('__proto__', 'c', 1) }], timedOut: [] });
    expect(({} as Record<string, unknown>).c).toBeUndefined();
    expect(Object.hasOwn(result.changesByGroup, '__proto__')).toBe(true);
    expect(result.changesByGroup['__proto__']).toEqual({ c: 1 });
    // Catching up another connection of the group, and the recovery answer, name it too.
    expect(e.since(0, ['__proto__']).changesByGroup).toEqual(Object.fromEntries([['__proto__', { c: 1 }]]));
    expect(e.pull('__proto__', null).lastMutationIDChanges).toEqual({ c: 1 });
  });

  it.each(['constructor', 'toString', 'hasOwnProperty'])('acknowledges the clients of a group named %j under that group only', async (group) => {
    const e = engine();
    e.connect({ clientID: 'x', clientGroupID: group, userID: 'u', baseCookie: null, lmid: 0 });
    const result = await e.batch({ pushes: [{ conn: 0, auth, push: push(group, 'x', 1) }], timedOut: [] });
    expect(Object.hasOwn(result.changesByGroup, group)).toBe(true);
    expect(result.changesByGroup[group]).toEqual({ x: 1 });
    expect((Object as unknown as Record<string, unknown>).x).toBeUndefined();
    expect((Object.prototype.toString as unknown as Record<string, unknown>).x).toBeUndefined();
  });

  it('acknowledges a client named "__proto__" by name', async () => {
    const e = engine();
    e.connect({ clientID: '__proto__', clientGroupID: 'g', userID: 'u', baseCookie: null, lmid: 0 });
    const result = await e.batch({ pushes: [{ conn: 0, auth, push: push('g', '__proto__', 1) }], timedOut: [] });
    expect(Object.hasOwn(result.changesByGroup.g!, '__proto__')).toBe(true);
    expect(result.changesByGroup.g!['__proto__']).toBe(1);
    expect(JSON.stringify(e.pull('g', null).lastMutationIDChanges)).toBe('{"__proto__":1}');
    const catchUp = e.connect({ clientID: 'other', clientGroupID: 'g', userID: 'u', baseCookie: null, lmid: 0 });
    expect(catchUp.ok && JSON.stringify(catchUp.catchUp?.lastMutationIDChanges)).toBe('{"__proto__":1}');
  });

  it.each(['__proto__', 'constructor', 'toString'])('apply() (other nodes\' writes) reports the clients of a group named %j under that group only', (group) => {
    const e = engine();
    const delta = e.apply({
      meta: { roomID: 'r', version: 1, closed: false, tombstoneHorizon: 0, createdAt: 0 },
      full: false,
      entries: [],
      clients: [
        { clientID: 'c', clientGroupID: group, lastMutationID: 3, userID: 'u' },
        { clientID: '__proto__', clientGroupID: 'g', lastMutationID: 2, userID: 'u' },
      ],
    });
    expect(Object.hasOwn(delta.changesByGroup, group)).toBe(true);
    expect(JSON.stringify(delta.changesByGroup[group])).toBe('{"c":3}');
    expect(JSON.stringify(delta.changesByGroup.g)).toBe('{"__proto__":2}');
    expect((Object.prototype as Record<string, unknown>).c).toBeUndefined();
    expect((Object as unknown as Record<string, unknown>).c).toBeUndefined();
    expect((Object.prototype.toString as unknown as Record<string, unknown>).c).toBeUndefined();
    expect(e.pull(group, null).lastMutationIDChanges).toEqual({ c: 3 });
  });
});

describe('RoomEngine size limit', () => {
  const big = JSON.stringify('x'.repeat(200));
  const overLimit: StoredRoom = { ...stored, meta: { ...stored.meta, version: 1 }, entries: [{ key: 'big', json: big, version: 1 }] };
  const mutators = {
    ...conformanceMutators,
    /** Writes `key` and deletes `big` in one mutation. */
    async swap(tx: WriteTransaction, args: { key: string }): Promise<void> {
      await tx.put(args.key, 1);
      await tx.del('big');
    },
  };
  const limited = () => new RoomEngine('r', overLimit, [], { mutators, maxMutationsPerPush: 100, maxTombstones: 100, maxRoomBytes: 100, newClientsPerUser: 1000 }, guard, new RoomPacer(pace));
  const mutation = (id: number, name: string, args: ReadonlyJSONValue) => ({ id, clientID: 'c', name, args, timestamp: 0 });
  const pushOf = (...mutations: ReturnType<typeof mutation>[]): PushBody => ({ timestamp: 0, clientGroupID: 'g', mutations, pushVersion: 1, schemaVersion: '1', requestID: 'r' });

  it('a room over its limit skips a mutation that grows it, and runs those that leave it as big or make it smaller, in one batch', async () => {
    const e = limited();
    e.connect({ clientID: 'c', clientGroupID: 'g', userID: 'u', baseCookie: 1, lmid: 0 });
    const before = e.stats().bytes;
    const result = await e.batch({
      pushes: [
        {
          conn: 0,
          auth,
          push: pushOf(mutation(1, 'put', { key: 'small', value: 1 }), mutation(2, 'put', { key: 'big', value: JSON.parse(big) }), mutation(3, 'swap', { key: 'small' })),
        },
      ],
      timedOut: [],
    });
    expect(result.failedCount).toBe(1);
    expect(result.failed[0]).toMatchObject({ mutationID: 1, error: { name: 'RoomSizeLimitError' } });
    expect(result.changesByGroup).toEqual({ g: { c: 3 } });
    expect(JSON.parse(result.patchJSON)).toEqual([{ op: 'del', key: 'big' }, { op: 'put', key: 'small', value: 1 }]);
    expect(e.stats().bytes).toBeLessThan(before);
  });
});

describe('RoomEngine and its guard', () => {
  it("hands the guard a call that settles, never throws, whether the mutator returns a value, a promise, or throws before returning one", async () => {
    const settled: string[] = [];
    // A guard that only chains on the call's promise: a call that threw instead would never be seen to settle.
    const watching: MutationGuard = {
      run: (_place, mutation, call) => call().finally(() => settled.push(mutation.name)),
    };
    const mutators = {
      ...conformanceMutators,
      plain: (tx: WriteTransaction) => void tx.put('plain', 1),
      throwsAtOnce: (): void => {
        throw new TypeError('refused at once');
      },
      rejects: async (): Promise<void> => {
        throw new TypeError('refused later');
      },
    };
    const e = new RoomEngine('r', stored, [], { mutators, maxMutationsPerPush: 100, maxTombstones: 100, maxRoomBytes: 1e6, newClientsPerUser: 1000 }, watching, new RoomPacer(pace));
    e.connect({ clientID: 'c', clientGroupID: 'g', userID: 'u', baseCookie: null, lmid: 0 });
    const mutations = ['plain', 'throwsAtOnce', 'rejects'].map((name, i) => ({ id: i + 1, clientID: 'c', name, args: null, timestamp: 0 }));
    const result = await e.batch({ pushes: [{ conn: 0, auth, push: { timestamp: 0, clientGroupID: 'g', mutations, pushVersion: 1, schemaVersion: '1', requestID: 'r' } }], timedOut: [] });
    expect(settled).toEqual(['plain', 'throwsAtOnce', 'rejects']);
    expect(result.failed.map((f) => [f.name, f.error.message])).toEqual([
      ['throwsAtOnce', 'refused at once'],
      ['rejects', 'refused later'],
    ]);
    expect(result.changesByGroup).toEqual({ g: { c: 3 } });
  });
});
