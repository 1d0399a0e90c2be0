import { MAX_JSON_VALUE_DEPTH } from '../../protocol/constants';
import type { MutatorDefs } from '../../src/db/transaction-types';
import type { Mutation } from '../../src/protocol';
import type { AuthData } from '../auth/auth';
import { BatchWriter } from '../batch-writer';
import { ClientError, RoomSizeLimitError, StoppedMutatorError, UnknownMutatorError } from '../errors';
import { jsonTextDeeperThan } from '../json-text-depth';
import { NEW_CLIENT_WINDOW_MS } from '../limits';
import { RoomData, type ClientRecord } from '../room-data';
import { ServerTransaction } from '../server-transaction';
import { MAX_ID_BYTES, storedTextProblem } from '../stored-text';
import { compareKeys } from '../key-order';
import { opJSON } from '../room-data';
import type { RoomChanges, StoredClient, StoredRoom } from '../storage/types';
import type {
  BatchRequest,
  BatchResult,
  ClientBinding,
  ConnectAnswer,
  ConnectRequest,
  FailedMutation,
  MutationPlace,
  PullAnswer,
  PushInput,
  RoomDelta,
  RoomStats,
} from './engine-types';
import { PRESENCE_MUTATION_NAME } from '../../protocol/presence';
import { setPresenceNatively, writePresenceChanges } from '../presence/presence-writes';
import type { MutationGuard } from './mutation-guard';
import { roomNewClientBudget, type NewClientBudget } from './new-client-budget';
import { ownRecord, setOwn } from './own-record';
import type { RoomPacer } from './pacer';

export interface EngineOptions {
  readonly mutators: MutatorDefs;
  readonly maxMutationsPerPush: number;
  readonly maxTombstones: number;
  /** A mutation that would take the room over this many bytes (what its entries add to a catch-up, entryBytes) is skipped. */
  readonly maxRoomBytes: number;
  /** New client records one user may add to the room per hour (see NewClientBudget). */
  readonly newClientsPerUser: number;
}

/** Most skipped mutations described in one batch result (the rest are only counted). */
const MAX_FAILED_REPORTED = 20;

/**
 * One room's state and the running of its mutators: connect checks, batches,
 * catch-up patches and recovery answers. Plain data in and out, no sockets and
 * no storage, so it runs the same in the main thread or a worker.
 */
export class RoomEngine {
  private readonly data: RoomData;
  /** Clients bound at connect whose record is not stored yet (stored with the next batch). */
  private readonly unsaved = new Set<string>();
  private readonly newClients: NewClientBudget;
  /** Stored values that nest deeper than any client accepts (written before the limit): not served. */
  readonly unservable: readonly string[];
  /** What a transaction calls before each read or write (one function for every mutation). */
  private readonly pace: () => Promise<void> | undefined;

  constructor(
    readonly roomID: string,
    stored: StoredRoom,
    bindings: readonly ClientBinding[],
    private readonly options: EngineOptions,
    private readonly guard: MutationGuard,
    private readonly pacer: RoomPacer,
  ) {
    this.data = new RoomData(stored.meta.version, stored.meta.tombstoneHorizon);
    this.pace = () => pacer.check();
    this.newClients = roomNewClientBudget(roomID, options.newClientsPerUser, NEW_CLIENT_WINDOW_MS);
    const unservable: string[] = [];
    const servable = stored.entries.filter((e) => {
      const deep = e.json !== undefined && jsonTextDeeperThan(e.json, MAX_JSON_VALUE_DEPTH);
      if (deep) unservable.push(e.key);
      return !deep;
    });
    this.unservable = unservable;
    this.data.loadEntries(servable.map((e) => [e.key, { json: e.json, version: e.version }] as const));
    for (const c of stored.clients) this.data.setClient(c.clientID, recordOf(c));
    for (const b of bindings) {
      if (this.data.clients.get(b.clientID)?.userID !== undefined) continue;
      this.data.setClient(b.clientID, { clientGroupID: b.clientGroupID, lastMutationID: this.data.clients.get(b.clientID)?.lastMutationID ?? 0, userID: b.userID });
      this.unsaved.add(b.clientID);
    }
  }

  get version(): number {
    return this.data.version;
  }

  connect(r: ConnectRequest): ConnectAnswer {
    const known = this.data.clients.get(r.clientID);
    // Whose it is first: another user learns nothing of the client (not even its group).
    if (known?.userID !== undefined && known.userID !== r.userID) {
      return refuse('Unauthorized', `Client ${r.clientID} belongs to another user`);
    }
    if (this.ofAnotherUser(r.clientGroupID, r.userID)) return refuse('Unauthorized', `Client group ${r.clientGroupID} belongs to another user`);
    if (known !== undefined && known.clientGroupID !== r.clientGroupID) {
      return refuse('InvalidConnectionRequest', `Client ${r.clientID} belongs to client group ${known.clientGroupID}, not ${r.clientGroupID}`);
    }
    const serverLmid = known?.lastMutationID ?? 0;
    if (r.lmid > serverLmid) return refuse('InvalidConnectionRequest', `Unexpected lmid ${r.lmid} for client ${r.clientID}: the server has ${serverLmid}`);
    if (r.baseCookie !== null && r.baseCookie > this.data.version) {
      return refuse('InvalidConnectionRequest', `Unexpected baseCookie ${r.baseCookie}: room ${this.roomID} is at version ${this.data.version}`);
    }
    // Last: a refused connect takes nothing of the user's budget of new clients.
    if (known === undefined && !this.newClients.take(r.budgetKey ?? r.userID)) return refuse('InvalidConnectionRequest', tooManyNewClients(this.roomID, this.newClients.perWindow));
    if (known?.userID === undefined) {
      this.data.setClient(r.clientID, { clientGroupID: r.clientGroupID, lastMutationID: serverLmid, userID: r.userID });
      this.unsaved.add(r.clientID);
    }
    // Catch-up: sent when the client is behind, in data or in its own last mutation id.
    if (r.baseCookie === this.data.version && serverLmid === r.lmid) return { ok: true, catchUp: undefined };
    return {
      ok: true,
      catchUp: {
        baseCookie: r.baseCookie,
        cookie: this.data.version,
        lastMutationIDChanges: this.data.groupMutationIDs(r.clientGroupID),
        patchJSON: this.data.patchJSONSince(r.baseCookie),
      },
    };
  }

  /** Mutation recovery: the group's last mutation ids changed since `cookie` (all of them for null), and whose the group is. */
  pull(clientGroupID: string, cookie: number | null): PullAnswer {
    const user = this.data.groupUser(clientGroupID);
    return { cookie: this.data.version, lastMutationIDChanges: this.data.groupMutationIDs(clientGroupID, cookie), ...(user === undefined ? {} : { user }) };
  }

  /** Whether the group is bound to a user other than `userID` (a group no client of which is bound yet is nobody's). */
  private ofAnotherUser(clientGroupID: string, userID: string): boolean {
    const user = this.data.groupUser(clientGroupID);
    return user !== undefined && user !== userID;
  }

  /** Applies what other nodes stored after this state's version (not `full` changes: those reload the room). */
  apply(changes: RoomChanges): RoomDelta {
    const d = this.data;
    const patch: string[] = [];
    for (const e of [...changes.entries].sort((a, b) => compareKeys(a.key, b.key))) {
      d.setEntry(e.key, { json: e.json, version: e.version });
      patch.push(opJSON(e.key, e.json));
    }
    const changesByGroup: Record<string, Record<string, number>> = {};
    for (const c of changes.clients) {
      d.setClient(c.clientID, recordOf(c));
      // Stored by another node: that binding stands, a different one made here is not written over it.
      this.unsaved.delete(c.clientID);
      if (c.lastMutationID > 0) setOwn(ownRecord(changesByGroup, c.clientGroupID), c.clientID, c.lastMutationID);
    }
    d.version = changes.meta.version;
    if (changes.meta.tombstoneHorizon > d.tombstoneHorizon) d.dropTombstones(changes.meta.tombstoneHorizon);
    return { version: d.version, patchJSON: `[${patch.join(',')}]`, changesByGroup };
  }

  /** The poke from `cookie` to this version (`clear` and everything when the cookie is older than the horizon). */
  since(cookie: number, clientGroupIDs: readonly string[]): RoomDelta {
    const changesByGroup: Record<string, Record<string, number>> = {};
    for (const group of clientGroupIDs) {
      const ids = this.data.groupMutationIDs(group);
      if (Object.keys(ids).length > 0) setOwn(changesByGroup, group, ids);
    }
    return { version: this.data.version, patchJSON: this.data.patchJSONSince(cookie), changesByGroup };
  }

  stats(): RoomStats {
    const d = this.data;
    return { version: d.version, keys: d.liveCount, tombstones: d.tombstoneCount, clients: d.clients.size, bytes: d.byteSize };
  }

  /**
   * Runs a batch and moves the room to its new version at once; the caller
   * stores `commit` before poking, and drops this engine if that fails.
   */
  async batch(request: BatchRequest): Promise<BatchResult> {
    const run = new BatchRun(this.data, this.data.version + 1);
    const failures: { conn: number; kind: ClientError['kind']; message: string }[] = [];
    /** Connections whose push was refused in this batch: their later pushes do not run. */
    let refused: Set<number> | undefined;
    const presenceWritten = request.presence !== undefined && writePresenceChanges(run.writer, request.presence);
    this.pacer.begin();
    try {
      const { pushes, timedOut } = request;
      for (let index = 0; index < pushes.length; index++) {
        const input = pushes[index]!;
        if (refused?.has(input.conn) === true) continue;
        const error = await this.applyPush(index, input, timedOut, run);
        if (error !== undefined) {
          (refused ??= new Set()).add(input.conn);
          failures.push({ conn: input.conn, kind: error.kind, message: error.message });
        }
      }
    } finally {
      this.pacer.end();
    }
    if (run.changed.size === 0 && !presenceWritten) {
      run.writer.rollbackBatch();
      return { failures, commit: undefined, patchJSON: '[]', changesByGroup: {}, mutations: run.mutations, failedCount: run.failedCount, failed: run.failed };
    }
    return this.settle(run, failures);
  }

  private settle(run: BatchRun, failures: BatchResult['failures']): BatchResult {
    const { entries, patchJSON } = run.writer.finish();
    const clients: StoredClient[] = [];
    for (const [clientID, r] of run.changed) clients.push({ clientID, clientGroupID: r.clientGroupID, lastMutationID: r.lastMutationID, userID: r.userID });
    for (const clientID of this.unsaved) if (!run.changed.has(clientID)) clients.push({ clientID, ...this.data.clients.get(clientID)! });
    const horizon = this.data.horizonKeeping(this.options.maxTombstones);
    const commit = {
      baseVersion: this.data.version,
      version: run.writer.version,
      entries,
      clients,
      ...(horizon === undefined ? {} : { tombstoneHorizon: horizon }),
      // No mutation acknowledged: a closed room still takes it (a leaving client's presence).
      ...(run.changed.size === 0 ? { presenceOnly: true } : {}),
    };
    this.unsaved.clear();
    this.data.version = run.writer.version;
    const changesByGroup: Record<string, Record<string, number>> = {};
    for (const [clientID, r] of run.changed) {
      this.data.setClient(clientID, r, this.data.version);
      setOwn(ownRecord(changesByGroup, r.clientGroupID), clientID, r.lastMutationID);
    }
    if (horizon !== undefined) this.data.dropTombstones(horizon);
    return { failures, commit, patchJSON, changesByGroup, mutations: run.mutations, failedCount: run.failedCount, failed: run.failed };
  }

  /** Runs the push's new mutations; returns the error that ends its connection, if any. */
  private async applyPush(index: number, input: PushInput, timedOut: readonly MutationPlace[], run: BatchRun): Promise<ClientError | undefined> {
    const { push, auth } = input;
    if (push.mutations.length > this.options.maxMutationsPerPush) {
      return new ClientError('InvalidPush', `Push has ${push.mutations.length} mutations; at most ${this.options.maxMutationsPerPush} are accepted per push`);
    }
    if (this.ofAnotherUser(push.clientGroupID, auth.userID)) return new ClientError('Unauthorized', `Client group ${push.clientGroupID} belongs to another user`);
    const mutations = push.mutations;
    for (let mi = 0; mi < mutations.length; mi++) {
      const m = mutations[mi]!;
      const record = run.changed.get(m.clientID) ?? this.data.clients.get(m.clientID);
      // Whose it is first: another user learns nothing of the client (not even its group).
      if (record?.userID !== undefined && record.userID !== auth.userID) {
        return new ClientError('Unauthorized', `Client ${m.clientID} belongs to another user`);
      }
      if (record !== undefined && record.clientGroupID !== push.clientGroupID) {
        return new ClientError('InvalidPush', `Client ${m.clientID} belongs to client group ${record.clientGroupID}, not ${push.clientGroupID}`);
      }
      if (record === undefined) {
        const problem = storedTextProblem(m.clientID, MAX_ID_BYTES) ?? storedTextProblem(push.clientGroupID, MAX_ID_BYTES);
        if (problem !== undefined) return new ClientError('InvalidPush', `Client ${JSON.stringify(m.clientID).slice(0, 100)} of group ${JSON.stringify(push.clientGroupID).slice(0, 100)} cannot be stored: ${problem}`);
      }
      const expected = (record?.lastMutationID ?? 0) + 1;
      if (m.id < expected) continue;
      if (m.id > expected) {
        return new ClientError('InvalidPush', `Push contains unexpected mutation id ${m.id} for client ${m.clientID}. Expected mutation id ${expected}.`);
      }
      // Only a mutation that will be applied makes a new client: its user's budget is taken here, after every check.
      if (record === undefined && !this.newClients.take(input.budgetKey ?? auth.userID)) return new ClientError('InvalidPush', tooManyNewClients(this.roomID, this.newClients.perWindow));
      const place = { push: index, mutation: mi };
      if (timedOut.length > 0 && timedOut.some((t) => t.push === index && t.mutation === mi)) {
        const stopped = new StoppedMutatorError(m.name);
        run.fail(m, auth, { name: stopped.name, message: stopped.message });
      } else {
        await this.runMutation(m, auth, place, run);
      }
      run.changed.set(m.clientID, { clientGroupID: push.clientGroupID, lastMutationID: m.id, userID: auth.userID });
      const slice = this.pacer.check();
      if (slice !== undefined) await slice;
    }
    return undefined;
  }

  private async runMutation(m: Mutation, auth: AuthData, place: MutationPlace, run: BatchRun): Promise<void> {
    const tx = new ServerTransaction(m.clientID, m.id, run.writer, auth, this.pace);
    run.mutations++;
    const sizeBefore = this.data.byteSize;
    try {
      const impl = Object.hasOwn(this.options.mutators, m.name) ? this.options.mutators[m.name] : undefined;
      if (m.name === PRESENCE_MUTATION_NAME) setPresenceNatively(run.writer, m, auth);
      else if (impl === undefined) throw new UnknownMutatorError(m.name);
      else await this.guard.run(place, m, () => callMutator(impl, tx, m.args));
      // Only this mutation wrote meanwhile (the room runs one thing at a time): the size moved by what it wrote.
      if (this.data.byteSize > sizeBefore && this.data.byteSize > this.options.maxRoomBytes) {
        throw new RoomSizeLimitError(this.roomID, this.data.byteSize, this.options.maxRoomBytes);
      }
      run.writer.endMutation();
    } catch (error) {
      run.writer.rollbackMutation();
      run.fail(m, auth, error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) });
    } finally {
      tx.close();
    }
  }
}

class BatchRun {
  readonly writer: BatchWriter;
  readonly changed = new Map<string, Required<ClientRecord>>();
  readonly failed: FailedMutation[] = [];
  mutations = 0;
  failedCount = 0;

  constructor(data: RoomData, version: number) {
    this.writer = new BatchWriter(data, version);
  }

  fail(m: Mutation, auth: AuthData, error: FailedMutation['error']): void {
    this.failedCount++;
    if (this.failed.length < MAX_FAILED_REPORTED) this.failed.push({ clientID: m.clientID, mutationID: m.id, name: m.name, userID: auth.userID, error });
  }
}

/**
 * The mutator's outcome as a promise: an async mutator's own (an async
 * wrapper would cost turns of the event loop on every mutation), and a
 * rejection when it throws before returning one.
 */
function callMutator(impl: MutatorDefs[string], tx: ServerTransaction, args: Mutation['args']): Promise<unknown> {
  try {
    return Promise.resolve(impl(tx, args));
  } catch (error) {
    return Promise.reject(error);
  }
}

function tooManyNewClients(roomID: string, perWindow: number): string {
  return `Room ${roomID} takes at most ${perWindow} new clients of one user an hour; try again later`;
}

function refuse(kind: ClientError['kind'], message: string): ConnectAnswer {
  return { ok: false, kind, message };
}

function recordOf(c: StoredClient): ClientRecord {
  return c.userID === undefined
    ? { clientGroupID: c.clientGroupID, lastMutationID: c.lastMutationID }
    : { clientGroupID: c.clientGroupID, lastMutationID: c.lastMutationID, userID: c.userID };
}
