/**
 * The local store of one client (tab, page load) over the shared store of its
 * user, room and schema: it joins (or forks) the client group, works on its
 * memory view, persists and refreshes it against the other tabs (TabSync, at
 * most once a second after a PERSIST_WAIT_MS wait, or as soon as the spacing
 * allows when another tab stored the group) and keeps every local mutation in
 * the write-ahead log until it is stored.
 */
import { readBTree, writeBTree } from '../btree/btree';
import { compareUTF8 } from '../btree/compare';
import { newHashFactory } from '../dag/hash';
import { LazyDagStore } from '../dag/lazy-store';
import { PersistScheduler, type SchedulerTimers } from '../dag/persist-scheduler';
import { PersistentDagStore } from '../dag/store';
import type { Hash } from '../dag/types';
import { MAIN_HEAD } from '../db/commit';
import { Database } from '../db/database';
import type { IndexDefinitions } from '../db/index-definition';
import type { StoreLogger } from '../db/logger';
import { storeOver, type Store } from '../db/store';
import type { MutatorDefs } from '../db/transaction-types';
import { StoreClosedError, StoreConflictError } from '../kv/errors';
import type { KvStore } from '../kv/types';
import type { PendingMutation } from '../sync/server-update';
import { DurableMutations, type DurabilityLogger } from './durable-mutations';
import { HINT_FIRST_READ_MAX, sameChain, type ChainHint, type GroupChain, type HintedChain } from './group-chain';
import { firstReadPath, startJoiningClientGroup, type Joined } from './join-group';
import { readLogs, type ClientLog } from './mutation-log';
import { TabSync, type SyncResult } from './tab-sync';

export interface ClientStoreOptions {
  /** The shared store of the user, room and schema. */
  readonly dataKv: KvStore;
  /** The write-ahead log beside it (the client starts joining while it opens). */
  readonly logKv: KvStore | Promise<KvStore>;
  /** Its logs, when their read started earlier (as the log store opened); else they are read here. */
  readonly logsRead?: Promise<readonly ClientLog[]>;
  readonly clientID: string;
  readonly mutators: MutatorDefs;
  readonly indexes: IndexDefinitions;
  readonly clock: () => number;
  readonly timers: SchedulerTimers;
  readonly random: () => number;
  readonly logger: StoreLogger & DurabilityLogger;
  readonly newClientGroupID: () => string;
  /** Whether the view must stay on its own snapshot when another tab stored a newer one (while its socket is connected). */
  readonly keepOwnSnapshot: () => boolean;
  /** Commits of a dropped chain collected per write (TabSync's releaseSliceCommits; tests make it small). */
  readonly releaseSliceCommits?: number;
  /** Local commits stored per write ahead of a long view's store (TabSync's storeSliceCommits; tests make it small). */
  readonly storeSliceCommits?: number;
  /** After each local mutation is committed (and handed to the log). */
  readonly onLocalMutation?: (mutation: PendingMutation) => void;
  /** This client moved the group head: the other tabs should refresh. */
  readonly onGroupHeadMoved?: () => void;
  /** After every persist and refresh (the view may hold other tabs' mutations now). */
  readonly onSynced?: () => void;
  /** A mutation of this client is in the write-ahead log (the other tabs may take it in from there). */
  readonly onLogged?: () => void;
  /** This client's record or its group is gone from the shared store (collected, disabled, or the database deleted). */
  readonly onClientStateNotFound: () => void;
  /**
   * The store can be read (not yet written): its view is open over what the
   * join read and the logged mutations are replayed, while the joining
   * transaction commits. A read's own IndexedDB transaction comes after that
   * commit; mutations, persists and the rest wait for openClientStore.
   */
  readonly onReadable?: (store: Store) => void;
  /** Where the chain of the group's head is kept for the next start (see ChainHint). */
  readonly chainHint?: ChainHint;
}

export interface ClientStore {
  readonly store: Store;
  readonly clientGroupID: string;
  readonly joined: Joined;
  /** The shared store (records and chunks). */
  readonly perdag: PersistentDagStore;
  /** This client's memory view over it. */
  readonly memdag: LazyDagStore;
  /** The head of the view (for diagnostics and tests). */
  viewHead(): Hash;
  /** Resolves once the first read of the store has ended (work that can wait for it should). */
  readonly firstRead: Promise<void>;
  /** Another tab stored the group: refresh as soon as the spacing allows. */
  refreshSoon(): void;
  /** Another tab of the group logged mutations: take them in from its log now (or refresh, when they do not follow on). */
  catchUp(clientID: string): Promise<void>;
  /** Persists and refreshes now. */
  sync(): Promise<SyncResult>;
  /** After a server update: drops from the log what the server acknowledged. */
  acknowledged(): void;
  /** Resolves once every local mutation made so far is in the write-ahead log. */
  whenLogged(): Promise<void>;
  /** Stores everything, removes this client's log, closes both stores. */
  close(): Promise<void>;
}

export async function openClientStore(o: ClientStoreOptions): Promise<ClientStore> {
  const createHash = newHashFactory(o.random);
  let memdag: LazyDagStore | undefined;
  // A chunk deleted from the shared store (e.g. an acknowledged chain dropped) leaves the view's cache too.
  const onCollected = (hash: Hash) => memdag?.forgetPersisted(hash);
  const perdag = new PersistentDagStore(o.dataKv, { createHash, onCollected });
  // The nodes the view's first read asks of the shared store, for the next start's hint: the view reads
  // through a store of its own over the same kv, so other readers (the sync, recovery) are not counted.
  let firstReadNodes: Hash[] | undefined = o.chainHint === undefined ? undefined : [];
  const viewSource =
    o.chainHint === undefined
      ? perdag
      : new PersistentDagStore(o.dataKv, {
          createHash,
          onCollected,
          onChunkRead: (hash) => void (firstReadNodes !== undefined && firstReadNodes.length < HINT_FIRST_READ_MAX && firstReadNodes.push(hash)),
        });
  // Read while the client joins: the logs hold what a closed or crashed tab left unstored.
  const logKvOpened = Promise.resolve(o.logKv);
  const logsRead = o.logsRead ?? logKvOpened.then(readLogs);
  logsRead.catch(() => {});
  // The join resolves once it has read what it needs and its commit has started: the view opens over
  // what it read while that transaction commits.
  let started: Awaited<ReturnType<typeof startJoiningClientGroup>>;
  try {
    started = await startJoiningClientGroup(perdag, {
      clientID: o.clientID,
      mutatorNames: Object.keys(o.mutators),
      indexes: o.indexes,
      now: o.clock(),
      newClientGroupID: o.newClientGroupID,
      ...(o.chainHint?.chain === undefined ? {} : { hint: o.chainHint.chain }),
    });
  } catch (error) {
    await Promise.allSettled([perdag.close(), logKvOpened.then((kv) => kv.close())]);
    throw error;
  }
  const { committed, ...joined } = started;
  committed.catch(() => {}); // awaited below
  let scheduler: PersistScheduler | undefined;
  let durable: DurableMutations | undefined;
  // A persist that falls due before TabSync exists (a replayed mutation scheduled it) waits for it.
  let tabSyncMade!: (made: TabSync) => void;
  let tabSyncFailed!: (error: unknown) => void;
  const tabSyncReady = new Promise<TabSync>((resolve, reject) => {
    tabSyncMade = resolve;
    tabSyncFailed = reject;
  });
  tabSyncReady.catch(() => {});
  let lost = false;
  let lastResult: SyncResult | undefined;
  let db: Database;
  let openedDb: Database | undefined;
  let store: Store;
  try {
    try {
      memdag = new LazyDagStore(viewSource, {
        createHash,
        knownHeads: { [MAIN_HEAD]: joined.headHash },
      });
      memdag.preload(joined.preloaded);
      db = await Database.open({
        dag: memdag,
        clientID: o.clientID,
        mutators: o.mutators,
        indexes: o.indexes,
        clock: o.clock,
        logger: o.logger,
        compare: compareUTF8,
        readTree: readBTree,
        writeTree: writeBTree,
        onLocalMutation: (mutation) => {
          durable?.record(mutation);
          o.onLocalMutation?.(mutation);
        },
      });
      openedDb = db;
      scheduler = new PersistScheduler(async () => void (await sync()), {
        timers: o.timers,
        clock: { now: o.clock },
        onError: (e) => o.logger.error('Background persist failed', e),
      });
      // Only the view needs storing; the merge head is TabSync's own scratch.
      memdag.schedulePersists(scheduler, MAIN_HEAD);
      store = storeOver(db, memdag, scheduler);
      const logKv = await logKvOpened;
      durable = new DurableMutations(logKv, o.clientID, joined.clientGroupID, o.logger, () => o.onLogged?.());
      // What a closed or crashed tab of the group left in its log is in the view before anything reads it.
      await durable.start(store, logsRead);
      o.onReadable?.(store);
    } finally {
      // The join holds (or failed) before anything else goes on: persists, the log's appends, the caller.
      await committed;
    }
  } catch (error) {
    // Nothing of a store that did not open stays open (the caller cannot close it): no persist runs (one
    // waiting for TabSync fails with this error), the view closes (a reader of onReadable's store finds
    // it closed) and both stores close.
    tabSyncFailed(error);
    scheduler?.close();
    const closeView = async () => {
      await openedDb?.close();
      await (memdag ?? perdag).close();
    };
    await Promise.allSettled([closeView(), logKvOpened.then((kv) => kv.close())]);
    throw error;
  }
  if (joined.reason !== undefined) o.logger.info(`Starting client group ${joined.clientGroupID}: no stored group fits (${joined.reason})`);
  // The chain record the last store that moved the group head wrote (the hint is saved from it: no read back).
  let movedChain: GroupChain | undefined;
  const tabSync = new TabSync({
    perdag,
    memdag,
    db,
    clientID: o.clientID,
    clientGroupID: joined.clientGroupID,
    startHead: joined.headHash,
    keepOwnSnapshot: o.keepOwnSnapshot,
    onGroupHeadMoved: (_head, written) => {
      movedChain = written;
      o.onGroupHeadMoved?.();
    },
    ...(o.releaseSliceCommits === undefined ? {} : { releaseSliceCommits: o.releaseSliceCommits }),
    ...(o.storeSliceCommits === undefined ? {} : { storeSliceCommits: o.storeSliceCommits }),
  });
  tabSyncMade(tabSync);
  const hint = o.chainHint;
  // The next start's hint: kept once the first read is served, with the nodes it read (or found preloaded);
  // kept again after each move of the group head.
  let first: readonly Hash[] = [];
  // The chain last saved (a move of the group head may come before the first read ends).
  let chain = joined.chain;
  const withFirst = (chain: GroupChain | undefined): HintedChain | undefined => (chain === undefined || first.length === 0 ? chain : { ...chain, first });
  if (hint !== undefined) {
    void db.firstRead.then(() => {
      first = [...new Set(firstReadPath([...(firstReadNodes ?? []), ...(joined.firstFound ?? [])], joined))].slice(0, HINT_FIRST_READ_MAX);
      firstReadNodes = undefined;
      const next = withFirst(chain);
      if (!sameChain(hint.chain, next)) hint.save(next);
    });
  }

  let catchingUp: Promise<void> = Promise.resolve();
  const queuedCatchUps = new Set<string>();
  async function sync(): Promise<SyncResult> {
    if (lost) return 'client-state-not-found';
    // A persist a replayed mutation scheduled waits for the open like the rest (TabSync is made once the join holds).
    const tabs = await tabSyncReady;
    const ids = durable?.lastIDsToStore() ?? new Map<string, number>();
    try {
      lastResult = await tabs.sync();
    } catch (error) {
      if (error instanceof StoreClosedError) lastResult = 'client-state-not-found';
      // IndexedDB ended a transaction midway: nothing was written; the next run tries again.
      else if (error instanceof StoreConflictError) lastResult = 'busy';
      else throw error;
    }
    if (lastResult === 'synced') await durable?.stored(ids);
    if (movedChain !== undefined) {
      chain = movedChain;
      movedChain = undefined;
      hint?.save(withFirst(chain));
    }
    if (lastResult === 'busy' && !db.isClosed) scheduler?.schedule();
    o.onSynced?.();
    if (lastResult === 'client-state-not-found' && !lost) {
      lost = true;
      o.onClientStateNotFound();
    }
    return lastResult;
  }

  return {
    store,
    clientGroupID: joined.clientGroupID,
    joined,
    perdag,
    memdag,
    viewHead: () => db.headCommit.hash,
    firstRead: db.firstRead,
    refreshSoon: () => scheduler!.scheduleSoon(),
    catchUp: (clientID) => {
      // A catch-up already waiting for this client will read whatever this one would.
      if (queuedCatchUps.has(clientID)) return catchingUp;
      queuedCatchUps.add(clientID);
      catchingUp = catchingUp.then(async () => {
        queuedCatchUps.delete(clientID);
        if (lost || db.isClosed) return;
        try {
          if (!(await durable!.catchUp(clientID))) scheduler!.scheduleSoon();
        } catch (error) {
          if (!db.isClosed) o.logger.error(`Could not take in the logged mutations of ${clientID}`, error);
          scheduler!.scheduleSoon();
        }
      });
      return catchingUp;
    },
    sync,
    acknowledged: () => durable!.acknowledged(),
    whenLogged: () => durable!.whenLogged(),
    async close() {
      try {
        await store.close();
        if (lastResult === 'synced') await durable!.drop();
      } finally {
        await (await logKvOpened).close();
      }
    },
  };
}
