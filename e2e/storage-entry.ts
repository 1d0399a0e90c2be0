/**
 * Runs in real Chromium: the storage layers over the browser's own IndexedDB.
 * Each function is one step; the test reloads the page between steps.
 */
import { Reflect } from '../src/index';
import { createStore } from '../src/db/store';
import { openStore } from '../src/kv/idb-store';
import type { WriteTransaction } from '../src/db/transaction-types';

const mutators = {
  async put(tx: WriteTransaction, { key, value }: { key: string; value: unknown }) {
    await tx.put(key, value as never);
  },
};

const indexes = { byOwner: { prefix: 't/', jsonPointer: '/owner' } };
const silent = { error() {}, warn() {}, info() {}, debug() {} };
const warnings: string[] = [];
const recordingLogger = { ...silent, warn: (...args: unknown[]) => void warnings.push(args.map(String).join(' ')) };

const steps = {
  async writeMutations(name: string, count: number, valueBytes: number) {
    const store = await createStore({ name, clientID: 'client-1', mutators, logger: silent });
    for (let i = 0; i < count; i++) {
      await store.mutate('put', { key: `item/${String(i).padStart(5, '0')}`, value: { i, text: 'x'.repeat(valueBytes) } });
    }
    await store.close();
  },

  async readBack(name: string) {
    const store = await createStore({ name, clientID: 'client-1', mutators, logger: silent });
    const keys = await store.query((tx) => tx.scan({ prefix: 'item/' }).keys().toArray());
    const first = await store.query((tx) => tx.get('item/00000'));
    const pending = store.pendingMutations().map((m) => m.id);
    await store.close();
    return { keys: keys.length, lastKey: keys.at(-1), first, pending };
  },

  async acknowledgeSome(name: string, upTo: number) {
    const store = await createStore({ name, clientID: 'client-1', mutators, logger: silent });
    // The server's patch carries the effects of the mutations it acknowledges.
    const acknowledged = store.pendingMutations().filter((m) => m.id <= upTo);
    await store.applyServerUpdate({
      baseCookie: store.cookie as number | null,
      cookie: 1,
      lastMutationIDChanges: { 'client-1': upTo },
      patch: [
        ...acknowledged.map((m) => ({ op: 'put' as const, ...(m.args as { key: string; value: never }) })),
        { op: 'put', key: 'server/greeting', value: 'hello from the server' },
      ],
    });
    await store.close();
  },

  async readServerState(name: string) {
    const store = await createStore({ name, clientID: 'client-1', mutators, logger: silent });
    const greeting = await store.query((tx) => tx.get('server/greeting'));
    const result = { cookie: store.cookie, lmid: store.lastMutationID, pending: store.pendingMutations().length, greeting };
    await store.close();
    return result;
  },

  async writeIndexed(name: string) {
    const store = await createStore({ name, clientID: 'client-1', mutators, logger: silent, indexes });
    for (const [key, owner] of [['t/1', 'bob'], ['t/2', 'alice'], ['t/3', 'bob'], ['t/4', 'carol']] as const) {
      await store.mutate('put', { key, value: { owner } });
    }
    await store.close();
  },

  async readIndexed(name: string) {
    const store = await createStore({ name, clientID: 'client-1', mutators, logger: silent, indexes });
    const bob = await store.query((tx) => tx.scan({ indexName: 'byOwner', prefix: 'bob' }).keys().toArray());
    const fromCarol = await store.query((tx) => tx.scan({ indexName: 'byOwner', start: { key: ['carol'] } }).keys().toArray());
    await store.close();
    return { bob, fromCarol };
  },

  /** The database is deleted by someone else (another tab, the user) while open. */
  async deletedUnderUs(name: string) {
    const kv = await openStore(name, { logger: silent });
    const write = await kv.write();
    await write.put('k', 1);
    await write.commit();
    await new Promise<void>((resolve, reject) => {
      const request = indexedDB.deleteDatabase(name);
      request.onsuccess = () => resolve();
      request.onerror = () => reject(request.error);
    });
    try {
      const read = await kv.read();
      const value = await read.get('k');
      read.release();
      return { error: null, value };
    } catch (error) {
      return { error: (error as Error).name, message: (error as Error).message };
    }
  },

  /**
   * A read made while a write commits: its first requests ride on the write's
   * transaction (no readonly transaction is made for them) and see its writes,
   * answered once that commit is done; when it aborts (even after the ridden
   * request succeeded) or the ridden request fails, the read is asked again
   * and sees what is stored.
   */
  async readWhileCommitting(name: string) {
    const kv = await openStore(name, { logger: silent });
    const setup = await kv.write();
    await setup.put('k', 1);
    await setup.commit();
    const made: IDBTransaction[] = [];
    const transaction = IDBDatabase.prototype.transaction;
    IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase['transaction']>) {
      const tx = transaction.apply(this, args);
      made.push(tx);
      return tx;
    } as IDBDatabase['transaction'];
    try {
      const round = async (abort: boolean) => {
        made.length = 0;
        const write = await kv.write();
        await write.put('k', abort ? 3 : 2);
        const committed = write.commit();
        committed.catch(() => {});
        const read = await kv.read();
        const value = read.get('k');
        if (abort) made[0]!.abort();
        const result = { value: await value, committed: await committed.then(() => 'ok', (e: Error) => e.name), modes: made.map((tx) => tx.mode) };
        read.release();
        return result;
      };
      // Asked from another task (the write's transaction is inactive then): placed at the write's last answer, answered once it committed.
      const later = async () => {
        made.length = 0;
        const write = await kv.write();
        for (let i = 0; i < 2000; i++) await write.put(`n/${i}`, i);
        const committed = write.commit();
        await new Promise((resolve) => setTimeout(resolve, 0));
        const read = await kv.read();
        // objectStore() throws InvalidStateError only once the transaction has finished (committed).
        const finished = () => {
          try {
            made[0]!.objectStore('kv');
            return false;
          } catch (e) {
            return (e as Error).name === 'InvalidStateError';
          }
        };
        const [, answer] = await Promise.all([committed, read.get('n/1999').then((value) => ({ value, afterCommit: finished() }))]);
        read.release();
        return { answer, modes: made.map((tx) => tx.mode) };
      };
      // The commit aborts after the reader's ridden request was answered: in the reader's continuation (inRequest false), or
      // in the request's own success event (true). Either way the reader sees the whole write or none of it.
      const lateAbort = async (inRequest: boolean) => {
        const setup = await kv.write();
        await setup.put('x', 0);
        await setup.put('y', 0);
        await setup.commit();
        made.length = 0;
        const get = IDBObjectStore.prototype.get;
        if (inRequest) {
          IDBObjectStore.prototype.get = function (this: IDBObjectStore, key: IDBValidKey | IDBKeyRange) {
            const request = get.call(this, key);
            const tx = this.transaction;
            if (tx.mode === 'readwrite') request.addEventListener('success', () => tx.abort());
            return request;
          } as IDBObjectStore['get'];
        }
        try {
          const write = await kv.write();
          await write.put('x', 1);
          await write.put('y', 1);
          const committed = write.commit().then(
            () => 'committed',
            () => 'aborted',
          );
          const read = await kv.read();
          const x = await read.get('x');
          try {
            made[0]!.abort();
          } catch {
            // Its commit is over.
          }
          const y = await read.get('y');
          read.release();
          const outcome = await committed;
          const stored = await kv.read();
          const both = [await stored.get('x'), await stored.get('y')];
          stored.release();
          return { seen: [x, y], stored: both, outcome };
        } finally {
          IDBObjectStore.prototype.get = get;
        }
      };
      // A ridden request that fails (a key the write holds cannot be added again) neither aborts nor fails the write.
      const failingRide = async () => {
        const get = IDBObjectStore.prototype.get;
        IDBObjectStore.prototype.get = function (this: IDBObjectStore, key: IDBValidKey | IDBKeyRange) {
          return this.transaction.mode === 'readwrite' && key === 'f' ? this.add('again', key) : get.call(this, key);
        } as IDBObjectStore['get'];
        try {
          const write = await kv.write();
          await write.put('f', 'written');
          const committed = write.commit().then(() => 'ok', (e: Error) => e.name);
          const read = await kv.read();
          const value = await read.get('f');
          read.release();
          return { value, committed: await committed };
        } finally {
          IDBObjectStore.prototype.get = get;
        }
      };
      return { rode: await round(false), aborted: await round(true), later: await later(), lateAbort: await lateAbort(false), abortInRequest: await lateAbort(true), failingRide: await failingRide() };
    } finally {
      IDBDatabase.prototype.transaction = transaction;
      await kv.close();
    }
  },

  /** A read asked from another task while a write commits, then close(): refused (StoreClosedError), though the write's transaction still takes requests at its last answer. */
  async rideAfterClose(name: string) {
    const kv = await openStore(name, { logger: silent });
    const write = await kv.write();
    for (let i = 0; i < 2000; i++) await write.put(`n/${i}`, i);
    const committed = write.commit().then(() => 'ok', (e: Error) => e.name);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const read = await kv.read();
    const value = read.get('n/1999').then((v) => ({ value: v }), (e: Error) => ({ error: e.name }));
    await kv.close();
    return { read: await value, committed: await committed };
  },

  /**
   * A client (Reflect, as an app uses it) puts `key` and closes; returns the
   * start-up hints localStorage holds then (see persist/group-chain's ChainHint).
   */
  async hintedPut(room: string, key: string, value: number) {
    const r = new Reflect({ userID: 'hint', roomID: room, socketOrigin: null, mutators: mutators as never });
    await (r.mutate as unknown as Record<string, (args: unknown) => Promise<void>>).put!({ key, value });
    await r.query((tx) => tx.get(key));
    await r.close();
    return Object.fromEntries(Object.keys(localStorage).filter((k) => k.startsWith('roomsync-chain-hint/')).map((k) => [k, localStorage.getItem(k)]));
  },

  /** Sets the hints (e.g. a stale copy, or garbage), then a client reads `keys`. */
  async readWithHints(room: string, hints: Record<string, string>, keys: string[]) {
    for (const [k, v] of Object.entries(hints)) localStorage.setItem(k, v);
    const r = new Reflect({ userID: 'hint', roomID: room, socketOrigin: null, mutators: mutators as never });
    const values = await r.query(async (tx) => Promise.all(keys.map((k) => tx.get(k))));
    await r.close();
    return values;
  },

  /**
   * A client (Reflect, never connected) makes `count` mutations and closes;
   * returns the chain records of its group as IndexedDB holds them (a long
   * chain: a record of the part ends and the last commits, and the parts).
   */
  async offlineBacklog(room: string, count: number) {
    const r = new Reflect({ userID: 'backlog', roomID: room, socketOrigin: null, mutators: mutators as never });
    const put = (r.mutate as unknown as Record<string, (args: unknown) => Promise<void>>).put!;
    for (let i = 0; i < count; i++) await put({ key: `b/${String(i).padStart(5, '0')}`, value: i });
    await r.close();
    const chainRecords: Record<string, unknown> = {};
    // The room's data store (its log, other rooms' stores and the registry hold none).
    for (const { name } of (await indexedDB.databases()).filter((d) => d.name?.startsWith(`roomsync:backlog:${room}:`))) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name!);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      if (db.objectStoreNames.contains('kv')) {
        const store = db.transaction('kv').objectStore('kv');
        const range = IDBKeyRange.bound('m/chain/', 'm/chain/\uffff');
        const [keys, values] = await Promise.all(
          [store.getAllKeys(range), store.getAll(range)].map((request) => new Promise<unknown[]>((resolve) => (request.onsuccess = () => resolve(request.result)))),
        );
        keys!.forEach((k, i) => (chainRecords[k as string] = values![i]));
      }
      db.close();
    }
    return chainRecords;
  },

  /** A client reopens the room's store: what it reads of the backlog, and how many mutations it has pending. */
  async readBacklog(room: string) {
    const r = new Reflect({ userID: 'backlog', roomID: room, socketOrigin: null, mutators: mutators as never });
    const values = await r.query((tx) => tx.scan({ prefix: 'b/' }).values().toArray());
    // The count is told once the open has settled the group's pending mutations.
    const pending = await new Promise<number>((resolve) => {
      if (r.pendingMutationCount > 0) return resolve(r.pendingMutationCount);
      const stop = r.onPendingMutationCountChange((count) => {
        stop();
        resolve(count);
      });
    });
    await r.close();
    return { values: values.length, last: values.at(-1), pending };
  },

  /**
   * A prefetch in Chromium (which has getAllRecords): the keys and values
   * under the prefix come in one request; later gets of them ask nothing,
   * a pending write still wins, a key outside the prefix is asked for.
   */
  async prefetchOneRequest(name: string) {
    const kv = await openStore(name, { logger: silent });
    const setup = await kv.write();
    for (const [k, v] of [['m/group/a', 1], ['m/group/b', 2], ['m/groupz', 'outside']] as const) await setup.put(k, v);
    await setup.commit();
    const asked: string[] = [];
    const proto = IDBObjectStore.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
    const originals = Object.fromEntries(['get', 'getAll', 'getAllKeys', 'getAllRecords'].map((m) => [m, proto[m]!]));
    for (const [m, original] of Object.entries(originals)) {
      proto[m] = function (this: IDBObjectStore, ...args: unknown[]) {
        asked.push(m);
        return original.apply(this, args);
      };
    }
    try {
      const w = await kv.write();
      await w.put('m/group/b', 20);
      await w.prefetch!('m/group/');
      const prefetched = [...asked];
      asked.length = 0;
      const values = [await w.get('m/group/a'), await w.get('m/group/b'), await w.get('m/groupz')];
      await w.commit();
      return { prefetched, values, asked: [...asked] };
    } finally {
      Object.assign(proto, originals);
      await kv.close();
    }
  },

  /** Where IndexedDB cannot be opened at all (run in an opaque-origin frame), the store falls back to memory with a warning. */
  async fallbackWhenUnavailable() {
    const store = await openStore('unavailable', { logger: recordingLogger });
    const write = await store.write();
    await write.put('k', 'v');
    await write.commit();
    const read = await store.read();
    const value = await read.get('k');
    read.release();
    return { value, warned: warnings.length > 0 };
  },
};

Object.assign(window, { steps });
