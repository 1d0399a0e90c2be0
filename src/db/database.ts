import type { ReadonlyJSONValue } from '../../protocol/json';
import type { DiffOp } from '../btree/types';
import type { DagStore, DagWrite, Hash } from '../dag/types';
import type { PendingMutation } from '../sync/server-update';
import { toDiff, type ChangeMap } from './change-set';
import {
  letGoOfTrees,
  MAIN_HEAD,
  newCommitChunk,
  readChain,
  readCommit,
  readHeadCommit,
  type Commit,
  type LocalCommitData,
  type SnapshotCommitData,
} from './commit';
import type { DbContext } from './db-context';
import { MutationIDGapError, StoreClosedError, UnknownIndexError, UnknownMutatorError } from './errors';
import { diffCommits } from './commit-diff';
import { compileIndex, type CompiledIndex, type IndexDefinitions } from './index-definition';
import { cloneFrozenJSON } from './json-value';
import { Lock } from './lock';
import type { StoreLogger } from './logger';
import { MapReaders } from './map-access';
import { runMutation, type MutationInput } from './mutation-runner';
import { ReadTransactionImpl } from './read-transaction';
import type { ReadRecord } from './read-record';
import { encodeIndexKey } from './index-key';
import { ensureIndexes, indexesMatch } from './reindex';
import type { KeyCompare } from './scan-options';
import { makeStoreChange } from './store-change';
import { Subscriptions, type StoreChange, type SubscribeOptions } from './subscriptions';
import type { MutatorDefs, ReadTransaction } from './transaction-types';
import { Watchers, type WatchCallback, type WatchOptions } from './watch';
import type { BTreeReader, BTreeWriter } from '../btree/types';
import { emptyEntries } from '../btree/node';
import type { DagRead } from '../dag/types';
import type { Chain } from './merge-chains';

export interface DatabaseOptions {
  readonly dag: DagStore;
  readonly clientID: string;
  readonly mutators: MutatorDefs;
  readonly indexes?: IndexDefinitions | undefined;
  readonly clock: () => number;
  readonly logger: StoreLogger;
  readonly compare: KeyCompare;
  readonly readTree: (dag: DagRead, root: Hash) => BTreeReader;
  readonly writeTree: (dag: DagWrite, root: Hash | undefined) => BTreeWriter;
  /** The head holding the local view. @default 'main' */
  readonly headName?: string | undefined;
  /** Called after every local mutation is committed (the pusher listens). */
  readonly onLocalMutation?: ((mutation: PendingMutation) => void) | undefined;
}

/**
 * The local database: the head commit, mutations, reads, subscriptions and
 * watchers. Heads only move under `lock`, so the cached head is the truth.
 */
export class Database {
  readonly clientID: string;
  readonly headName: string;
  readonly ctx: DbContext;
  readonly dag: DagStore;
  readonly lock = new Lock();
  /** Server updates and refreshes from other tabs move the snapshot: one at a time. */
  readonly syncLock = new Lock();
  readonly subscriptions: Subscriptions;
  readonly watchers: Watchers;
  /** Set while a server update is being applied. */
  syncing = false;
  /** Resolves once the first read (a query, a subscription's first run) has ended. */
  readonly firstRead: Promise<void>;
  private readEnded: (() => void) | undefined;

  private readonly mutators: MutatorDefs;
  private readonly clock: () => number;
  private readonly indexByName: ReadonlyMap<string, CompiledIndex>;
  private readonly onLocalMutation: ((mutation: PendingMutation) => void) | undefined;
  private closed = false;
  private head!: Commit;
  private headIndexRoots!: ReadonlyMap<string, Hash>;
  private snapshot!: Commit<SnapshotCommitData>;
  private nextID = 1;
  /** Pending mutations of the current head, oldest first (one record each, shared with the write-ahead log). */
  private pending: PendingMutation[] = [];
  /**
   * The head's local commits, oldest first: their hashes and their mutations
   * (the records `pending` holds, for those not acknowledged). No object per
   * commit beyond its mutation record, and no reference to the commit chunks,
   * which the memory dag replaces once they are stored.
   */
  private localHashes: Hash[] = [];
  private localMutations: PendingMutation[] = [];
  /** Keys written by local commits of this session, to compute rebase changes cheaply (one key as itself, no array). */
  private readonly writtenKeys = new Map<Hash, string | readonly string[]>();

  private constructor(opts: DatabaseOptions) {
    this.clientID = opts.clientID;
    this.headName = opts.headName ?? MAIN_HEAD;
    this.dag = opts.dag;
    this.mutators = opts.mutators;
    this.clock = opts.clock;
    this.onLocalMutation = opts.onLocalMutation;
    const indexes = Object.entries(opts.indexes ?? {}).map(([name, def]) => compileIndex(name, def));
    this.indexByName = new Map(indexes.map((ix) => [ix.name, ix]));
    const logger = opts.logger;
    this.ctx = {
      compare: opts.compare,
      indexes,
      logger,
      onIndexSkip: (ix, key) => logger.warn(`Not indexing ${JSON.stringify(key)} in ${ix.name}: no string at ${ix.definition.jsonPointer}`),
      readTree: opts.readTree,
      writeTree: opts.writeTree,
    };
    this.firstRead = new Promise((resolve) => (this.readEnded = resolve));
    this.subscriptions = new Subscriptions(
      (body, record) => this.runRead(body, record),
      opts.compare,
      logger,
      (fn) => this.withSharedRead(fn),
    );
    this.watchers = new Watchers(logger);
  }

  static async open(opts: DatabaseOptions): Promise<Database> {
    const db = new Database(opts);
    await db.init();
    return db;
  }

  private async init(): Promise<void> {
    // A stored head built with these indexes (every open but a store's first and a change of indexes) is
    // only read: no write of nothing for the first read to wait for.
    const adopted = await this.dag.withRead(async (dag) => {
      const head = await readHeadCommit(dag, this.headName);
      if (head === undefined || !indexesMatch(head.data, this.ctx)) return false;
      const { snapshot, locals } = await readChain(dag, head);
      this.adoptHead(head, snapshot, locals);
      return true;
    });
    if (adopted) return;
    const head = await this.dag.withWrite(async (dag) => {
      let head = await readHeadCommit(dag, this.headName);
      if (head === undefined) head = await this.writeGenesis(dag);
      const fixed = await ensureIndexes(dag, head, this.ctx, (name) => this.mutatorFor(name));
      if (fixed !== head) await dag.setHead(this.headName, fixed.hash);
      await dag.commit();
      return fixed;
    });
    await this.dag.withRead(async (dag) => {
      const { snapshot, locals } = await readChain(dag, head);
      this.adoptHead(head, snapshot, locals);
    });
  }

  private async writeGenesis(dag: DagWrite): Promise<Commit> {
    const valueHash = await this.ctx.writeTree(dag, undefined).flush();
    const indexes = [];
    for (const ix of this.ctx.indexes) {
      indexes.push({ name: ix.name, definition: ix.definition, valueHash: await this.ctx.writeTree(dag, undefined).flush() });
    }
    const data: SnapshotCommitData = {
      type: 'snapshot',
      basisHash: null,
      cookie: null,
      lastMutationIDs: {},
      valueHash,
      indexes,
    };
    const chunk = newCommitChunk(dag, data);
    await dag.putChunk(chunk);
    await dag.setHead(this.headName, chunk.hash);
    return { hash: chunk.hash, data };
  }

  /** Adopts a new head; `locals` are its local commits on top of `snapshot`. */
  adoptHead(head: Commit, snapshot: Commit<SnapshotCommitData>, locals: readonly Commit<LocalCommitData>[]): void {
    this.moveHead(head);
    this.snapshot = snapshot;
    const acked = snapshot.data.lastMutationIDs;
    // (Arrays of objects even when empty, see emptyEntries: the commits push to them.)
    this.localHashes = emptyEntries();
    this.localMutations = emptyEntries();
    this.pending = emptyEntries();
    for (const c of locals) {
      const m = toPending(c);
      this.localHashes.push(c.hash);
      this.localMutations.push(m);
      if (m.id > (acked[m.clientID] ?? 0)) this.pending.push(m);
    }
    let last = acked[this.clientID] ?? 0;
    for (const c of locals) if (c.data.clientID === this.clientID && c.data.mutationID > last) last = c.data.mutationID;
    this.nextID = Math.max(this.nextID, last + 1);
  }

  private moveHead(head: Commit): void {
    if (this.head === undefined || this.head.data.indexes !== head.data.indexes) {
      this.headIndexRoots = new Map(head.data.indexes.map((ix) => [ix.name, ix.valueHash]));
    }
    this.head = head;
  }

  get headCommit(): Commit {
    return this.head;
  }

  get snapshotCommit(): Commit<SnapshotCommitData> {
    return this.snapshot;
  }

  /** The cookie of the last applied server state (null before any). */
  get cookie(): ReadonlyJSONValue {
    return this.snapshot.data.cookie;
  }

  /** The last mutation id of this client the server acknowledged (0 at first). */
  get lastMutationID(): number {
    return this.snapshot.data.lastMutationIDs[this.clientID] ?? 0;
  }

  /** The id the next local mutation gets. */
  get nextMutationID(): number {
    return this.nextID;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Mutations not yet acknowledged by the server, in order (per client, by id). */
  pendingMutations(): PendingMutation[] {
    return this.pending.slice();
  }

  get pendingMutationCount(): number {
    return this.pending.length;
  }

  /** The list itself: read at once, never kept (the pusher walks it on every flush of a long backlog). */
  pendingMutationList(): readonly PendingMutation[] {
    return this.pending;
  }

  /**
   * The head's local commits, oldest first: their hashes and their mutations
   * (the lists themselves: read them at once, never keep or change them).
   */
  headLocals(): { readonly hashes: readonly Hash[]; readonly mutations: readonly PendingMutation[] } {
    return { hashes: this.localHashes, mutations: this.localMutations };
  }

  /** Keys written by a local commit, if it was made in this session. */
  keysWrittenBy(hash: Hash): readonly string[] | undefined {
    const keys = this.writtenKeys.get(hash);
    return typeof keys === 'string' ? [keys] : keys;
  }

  /**
   * After a sync replaced every local commit: only the replayed ones are kept
   * (the map is cleared, not emptied an entry at a time, which rehashed it
   * at every halving after a long backlog drained).
   */
  resetWrittenKeys(written: ReadonlyMap<Hash, ChangeMap>): void {
    // (Clearing an empty map still makes it a new table.)
    if (this.writtenKeys.size > 0) this.writtenKeys.clear();
    for (const [hash, changes] of written) this.rememberWrittenKeys(hash, changes);
  }

  rememberWrittenKeys(hash: Hash, changes: ChangeMap): void {
    // (forEach: no iterator object per commit while code is cold.)
    if (changes.size === 1) changes.forEach((_, key) => void this.writtenKeys.set(hash, key));
    else {
      const keys: string[] = [];
      changes.forEach((_, key) => void keys.push(key));
      this.writtenKeys.set(hash, keys);
    }
  }

  mutatorFor(name: string): MutatorDefs[string] | undefined {
    return Object.prototype.hasOwnProperty.call(this.mutators, name) ? this.mutators[name] : undefined;
  }

  checkOpen(): void {
    if (this.closed) throw new StoreClosedError();
  }

  async mutate(name: string, args?: unknown): Promise<unknown> {
    this.checkOpen();
    const mutator = this.mutatorFor(name);
    if (mutator === undefined) throw new UnknownMutatorError(name);
    const frozenArgs = args === undefined ? null : cloneFrozenJSON(`(arguments of ${name})`, args);
    // (Not an async arrow: the lock hands on commitMutation's own promise.)
    const out = await this.lock.run(() => {
      this.checkOpen();
      const input = {
        name,
        args: frozenArgs,
        clientID: this.clientID,
        mutationID: this.nextID,
        timestamp: this.clock(),
        originalHash: null,
      };
      return this.commitMutation(input, mutator, 'initial');
    });
    this.onLocalMutation?.(out.mutation);
    await this.subscriptions.fire(out.change);
    return out.result;
  }

  /**
   * The last mutation id of `clientID` this state holds: acknowledged by the
   * server or pending. 0 when none.
   */
  lastKnownMutationID(clientID: string): number {
    let last = this.snapshot.data.lastMutationIDs[clientID] ?? 0;
    for (const m of this.pending) if (m.clientID === clientID && m.id > last) last = m.id;
    return last;
  }

  /**
   * Applies a mutation recorded elsewhere (e.g. a write-ahead log) with its own
   * client, id and timestamp, unless this state already holds it. Replayed
   * like a rebase: a missing or throwing mutator is logged and the mutation
   * stays pending. Resolves to whether it was applied.
   */
  async replayMutation(m: PendingMutation): Promise<boolean> {
    this.checkOpen();
    const out = await this.lock.run(async () => {
      this.checkOpen();
      const known = this.lastKnownMutationID(m.clientID);
      if (m.id <= known) return undefined;
      if (m.id !== known + 1) throw new MutationIDGapError(m.clientID, known + 1, m.id);
      const args = cloneFrozenJSON(`(arguments of ${m.name})`, m.args);
      const input = { name: m.name, args, clientID: m.clientID, mutationID: m.id, timestamp: m.timestamp, originalHash: null };
      return this.commitMutation(input, this.mutatorFor(m.name), 'rebase');
    });
    if (out === undefined) return false;
    this.onLocalMutation?.(m);
    await this.subscriptions.fire(out.change);
    return true;
  }

  /** Runs a mutation on the head and moves the head to it. Call under the lock. */
  private async commitMutation(
    input: MutationInput,
    mutator: MutatorDefs[string] | undefined,
    reason: 'initial' | 'rebase',
  ): Promise<{ result: unknown; change: StoreChange; mutation: PendingMutation }> {
    const dag = await this.dag.write();
    try {
      const out = await runMutation(dag, this.head, input, mutator, reason, this.ctx);
      await dag.setHead(this.headName, out.commit.hash);
      letGoOfTrees(dag, [this.head]);
      await dag.commit();
      this.moveHead(out.commit);
      if (input.clientID === this.clientID) this.nextID = Math.max(this.nextID, input.mutationID + 1);
      const mutation = toPending(out.commit);
      this.pending.push(mutation);
      this.localHashes.push(out.commit.hash);
      this.localMutations.push(mutation);
      this.rememberWrittenKeys(out.commit.hash, out.changes);
      const change = this.makeChange(toDiff(out.changes, this.ctx.compare));
      this.watchers.notify(change);
      return { result: out.result, change, mutation };
    } finally {
      dag.release();
    }
  }

  makeChange(diff: readonly DiffOp[]): StoreChange {
    return makeStoreChange(diff, this.indexByName, this.ctx.compare);
  }

  /** Called (under the lock) after a sync moved the head. */
  adoptSyncedHead(
    head: Commit,
    snapshot: Commit<SnapshotCommitData>,
    locals: readonly Commit<LocalCommitData>[],
    change: StoreChange,
  ): void {
    this.adoptHead(head, snapshot, locals);
    this.watchers.notify(change);
  }

  /**
   * Moves the head to another commit already in the dag (e.g. one another tab
   * persisted) and tells watchers and subscriptions what changed. Local
   * commits not in that chain are dropped: rebase them onto it first. Mutation
   * ids never go back. Resolves to whether the head moved (transformHead).
   */
  replaceHead(hash: Hash): Promise<boolean> {
    return this.transformHead((dag) => readCommit(dag, hash));
  }

  /**
   * Under the lock, asks `next` for a new head built in the dag from the
   * current chain (e.g. merged with another tab's), moves there and tells
   * watchers and subscriptions what changed. `next` answers undefined to stay,
   * or the new head, or its chain (then the chain is not read again).
   * `currentOf`: the current chain, if the caller knows it without reading
   * the dag (the commits below the head may be stored only: a read each).
   * Resolves to whether the head moved.
   */
  async transformHead(
    next: (dag: DagWrite, current: Chain) => Promise<Commit | Chain | undefined>,
    currentOf?: (dag: DagWrite) => Chain,
  ): Promise<boolean> {
    const change = await this.lock.run(async () => {
      this.checkOpen();
      const dag = await this.dag.write();
      try {
        const current: Chain = currentOf?.(dag) ?? { head: this.head, snapshot: this.snapshot, locals: (await readChain(dag, this.head)).locals };
        const result = await next(dag, current);
        const head = result === undefined || !('locals' in result) ? result : result.head;
        if (head === undefined || head.hash === this.head.hash) return undefined;
        const { snapshot, locals } = result !== undefined && 'locals' in result ? result : await readChain(dag, head);
        const diff = await diffCommits(dag, this.head.data, head.data, 'all', this.ctx);
        await dag.setHead(this.headName, head.hash);
        letGoOfTrees(dag, locals.slice(0, -1));
        await dag.commit();
        this.adoptHead(head, snapshot, locals);
        const change = this.makeChange(diff);
        this.watchers.notify(change);
        return change;
      } finally {
        dag.release();
      }
    });
    if (change === undefined) return false;
    await this.subscriptions.fire(change);
    return true;
  }

  query<R>(body: (tx: ReadTransaction) => Promise<R> | R): Promise<R> {
    return this.runRead(body, undefined);
  }

  subscribe<R>(body: (tx: ReadTransaction) => Promise<R> | R, options: SubscribeOptions<R>): () => void {
    this.checkOpen();
    return this.subscriptions.subscribe(body, options);
  }

  experimentalWatch(callback: WatchCallback, options: WatchOptions = {}): () => void {
    this.checkOpen();
    const { indexName } = options;
    if (indexName !== undefined && !this.indexByName.has(indexName)) throw new UnknownIndexError(indexName);
    if (!options.initialValuesInFirstDiff) return this.watchers.add(callback, options).remove;
    let removed = false;
    let remove: (() => void) | undefined;
    // Under the lock, so that no commit falls between the initial read and the first diff.
    this.lock
      .run(async () => {
        if (removed || this.closed) return;
        const w = this.watchers.add(callback, options);
        remove = w.remove;
        const initial = await this.initialDiff(options);
        // Stopped during the read (or in the tick it started: a free lock runs this at once): nothing more is told.
        if (!removed) w.filter(initial);
      })
      .catch((e: unknown) => this.ctx.logger.error('experimentalWatch could not read the initial values', e));
    return () => {
      removed = true;
      remove?.();
    };
  }

  /** The current entries of the watched map as 'add' operations, keys in map space. */
  private initialDiff(options: WatchOptions): Promise<DiffOp[]> {
    const { indexName, prefix = '' } = options;
    return this.runRead(async (tx) => {
      if (indexName === undefined) {
        const entries = await tx.scan({ prefix }).entries().toArray();
        return entries.map(([key, newValue]) => ({ op: 'add' as const, key, newValue }));
      }
      const entries = await tx.scan({ prefix, indexName }).entries().toArray();
      return entries.map(([key, newValue]) => ({ op: 'add' as const, key: encodeIndexKey(...key), newValue }));
    }, undefined);
  }

  async runRead<R>(body: (tx: ReadTransaction) => Promise<R> | R, record: ReadRecord | undefined): Promise<R> {
    let result: R;
    await this.withSharedRead(async (run) => void (result = await run(body, record)));
    return result!;
  }

  /** One read of the head for several bodies (subscriptions re-run after one change). */
  private async withSharedRead(fn: (run: <R>(body: (tx: ReadTransaction) => Promise<R> | R, record: ReadRecord | undefined) => Promise<R>) => Promise<unknown>): Promise<void> {
    this.checkOpen();
    const dag = await this.dag.read();
    const { readTree, compare } = this.ctx;
    // One set of trees for every body: an index tree is opened once per read.
    const maps = new MapReaders(readTree(dag, this.head.data.valueHash), this.headIndexRoots, (root) => readTree(dag, root));
    try {
      // (An inline function, not a named one: tsx names each named closure it creates, on every read.)
      await fn(async <R>(body: (tx: ReadTransaction) => Promise<R> | R, record: ReadRecord | undefined): Promise<R> => {
        const tx = new ReadTransactionImpl(this.clientID, 'initial', maps, compare, record, true);
        try {
          return await body(tx);
        } finally {
          tx.close();
        }
      });
    } finally {
      dag.release();
      this.readEnded?.();
      this.readEnded = undefined;
    }
  }

  /** Stops reads, writes and subscriptions; waits for a running mutation. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.lock.run(() => {
      this.closed = true;
    });
    this.subscriptions.close();
  }
}

function toPending(c: Commit<LocalCommitData>): PendingMutation {
  const d = c.data;
  return { id: d.mutationID, clientID: d.clientID, name: d.mutatorName, args: d.mutatorArgs, timestamp: d.timestamp };
}
