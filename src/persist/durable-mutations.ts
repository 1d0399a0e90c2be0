/**
 * Makes every local mutation durable at once, whatever the background persist
 * delay: each one is appended to this client's write-ahead log as it is made;
 * at start-up the logged mutations of the group's clients that the stored
 * state lacks (a tab that closed or crashed before its persist) are replayed;
 * entries leave the log once a persist stored them or the server acknowledged them.
 */
import type { Store } from '../db/store';
import type { KvStore } from '../kv/types';
import type { PendingMutation } from '../sync/server-update';
import { OwnLog, readLog, readLogs, trimLog, type ClientLog, type LoggedMutation } from './mutation-log';

export interface DurabilityLogger {
  error(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  debug?(message: string, ...details: unknown[]): void;
}

export class DurableMutations {
  readonly #kv: KvStore;
  readonly #own: OwnLog;
  readonly #clientID: string;
  readonly #clientGroupID: string;
  readonly #logger: DurabilityLogger;
  readonly #onLogged: () => void;
  #store: Store | undefined;
  /** Other clients of the group whose logs were read at start: trimmed after the first persist. */
  readonly #others = new Set<string>();
  #lastAppended: Promise<void> = Promise.resolve();

  /**
   * `kv` holds the logs: best a store of its own, so appends never wait behind
   * a persist. The log asks for no persist of its own: every commit already asks
   * for the regular one (after which `stored` trims the log), and a persist run
   * at once after a burst of mutations only held the opens of other tabs behind
   * its long write (a tab opened then reads the log instead).
   */
  constructor(kv: KvStore, clientID: string, clientGroupID: string, logger: DurabilityLogger, onLogged: () => void = () => {}) {
    this.#kv = kv;
    this.#own = new OwnLog(kv, clientID, clientGroupID);
    this.#clientID = clientID;
    this.#clientGroupID = clientGroupID;
    this.#logger = logger;
    this.#onLogged = onLogged;
  }

  /**
   * Replays what the group's logs hold and the store lacks (each client's
   * mutations in id order, as long as they follow on), then starts logging
   * this client's mutations. `logsRead`: the logs, when their read started
   * earlier (e.g. while the store opened). Resolves to the number replayed.
   */
  async start(store: Store, logsRead: Promise<readonly ClientLog[]> = readLogs(this.#kv)): Promise<number> {
    const logs = (await logsRead).filter((log) => log.clientGroupID === this.#clientGroupID);
    let replayed = 0;
    for (const log of logs) {
      if (log.clientID !== this.#clientID && log.entries.length > 0) this.#others.add(log.clientID);
      for (const entry of log.entries) {
        if (entry.id <= store.lastKnownMutationID(entry.clientID)) continue;
        if (entry.id !== store.lastKnownMutationID(entry.clientID) + 1) break;
        try {
          if (await store.replayMutation(toPending(entry))) replayed++;
        } catch (error) {
          this.#logger.error(`Could not replay logged mutation ${entry.clientID}/${entry.id} (${entry.name}); it stays in the log`, error);
          break;
        }
      }
    }
    if (replayed > 0) this.#logger.info(`Recovered ${replayed} mutation(s) from the write-ahead log`);
    this.#store = store;
    return replayed;
  }

  /** Logs a mutation of this client as soon as it is committed in memory. */
  record(mutation: PendingMutation): void {
    if (this.#store === undefined || mutation.clientID !== this.#clientID) return;
    this.#lastAppended = this.#own.append(mutation);
    this.#lastAppended.then(this.#onLogged, (error: unknown) => this.#logger.error('Could not log a mutation', error));
  }

  /**
   * Takes in another client's logged mutations that follow on from what the
   * store holds (a sibling tab said it logged some): they show here at once,
   * before that tab's next persist. False when they do not follow on (the
   * store must refresh from the shared store first).
   */
  async catchUp(clientID: string): Promise<boolean> {
    const store = this.#store;
    if (store === undefined || store.closed || clientID === this.#clientID) return true;
    const entries = await readLog(this.#kv, clientID, this.#clientGroupID, store.lastKnownMutationID(clientID));
    for (const entry of entries) {
      const known = store.lastKnownMutationID(entry.clientID);
      if (entry.id <= known) continue;
      if (entry.id !== known + 1) return false;
      await store.replayMutation(toPending(entry));
    }
    return true;
  }

  /** Resolves once every mutation recorded so far is in the log. */
  whenLogged(): Promise<void> {
    return this.#lastAppended.catch(() => {});
  }

  /** What a persist about to run will store: per logged client, the last mutation id the state holds. */
  lastIDsToStore(): Map<string, number> {
    const store = this.#store;
    const out = new Map<string, number>();
    if (store === undefined) return out;
    out.set(this.#clientID, store.lastKnownMutationID(this.#clientID));
    for (const clientID of this.#others) out.set(clientID, store.lastKnownMutationID(clientID));
    return out;
  }

  /** After a persist stored `lastIDs` (from lastIDsToStore): those log entries are no longer needed. */
  async stored(lastIDs: ReadonlyMap<string, number>): Promise<void> {
    try {
      for (const [clientID, id] of lastIDs) {
        if (clientID === this.#clientID) {
          await this.#own.trimThrough(id);
        } else {
          await trimLog(this.#kv, clientID, id);
          this.#others.delete(clientID);
        }
      }
    } catch (error) {
      this.#logger.error('Could not trim the mutation log', error);
    }
  }

  /** After a server update: drops this client's entries the server acknowledged. */
  acknowledged(): void {
    const store = this.#store;
    if (store === undefined) return;
    this.#own.trimThrough(store.lastMutationID).catch((error: unknown) => this.#logger.error('Could not trim the mutation log', error));
  }

  /** At a clean close, once everything is stored: removes this client's log. */
  async drop(): Promise<void> {
    await this.#own.drop();
  }
}

function toPending(entry: LoggedMutation): PendingMutation {
  return { id: entry.id, clientID: entry.clientID, name: entry.name, args: entry.args as PendingMutation['args'], timestamp: entry.timestamp };
}
