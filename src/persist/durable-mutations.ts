/**
 * Makes every local mutation durable at once, whatever the background persist
 * delay: each one is appended to the write-ahead log as it is made, logged
 * mutations the stored state lacks are replayed on open, and entries leave the
 * log once the server acknowledged them or a persist stored them.
 */
import type { Store } from '../db/store';
import type { KvStore } from '../kv/types';
import type { PendingMutation } from '../sync/server-update';
import { MutationLog, type LoggedMutation } from './mutation-log';

/** A persist is forced after this many log entries, so the log stays short even without a server. */
export const MAX_LOG_ENTRIES_BEFORE_CHECKPOINT = 200;

export interface DurabilityLogger {
  error(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
}

export class DurableMutations {
  readonly #log: MutationLog;
  readonly #logger: DurabilityLogger;
  #clientID: string | undefined;
  #store: Store | undefined;
  #appended = 0;
  #lastAppendedID = 0;
  #checkpointing: Promise<void> | undefined;

  /** `kv` holds the log: best a store of its own, so appends never wait behind a persist of the dag. */
  constructor(kv: KvStore, logger: DurabilityLogger, { exclusive = false }: { exclusive?: boolean } = {}) {
    this.#log = new MutationLog(kv, { exclusive });
    this.#logger = logger;
  }

  /**
   * Replays what the log holds and the store lacks, stores the result, and
   * empties the log of what is now stored. From then on, `record` logs.
   */
  async recover(store: Store): Promise<number> {
    const entries = await this.#log.entries();
    let replayed = 0;
    const unusable = new Set<LoggedMutation>();
    for (const entry of entries) {
      if (entry.id <= store.lastKnownMutationID(entry.clientID)) continue;
      try {
        if (await store.replayMutation(toPending(entry))) replayed++;
      } catch (error) {
        unusable.add(entry);
        this.#logger.error(`Dropping logged mutation ${entry.clientID}/${entry.id} (${entry.name}): it cannot be replayed`, error);
      }
    }
    if (replayed > 0) {
      this.#logger.info(`Recovered ${replayed} mutation(s) from the write-ahead log`);
      await store.persist();
    }
    if (entries.length > 0) {
      await this.#log.removeWhere((entry) => unusable.has(entry) || entry.id <= store.lastKnownMutationID(entry.clientID));
    }
    this.#store = store;
    this.#clientID = store.clientID;
    return replayed;
  }

  /** Logs a mutation of this client as soon as it is committed in memory. */
  record(mutation: PendingMutation): void {
    if (this.#store === undefined || mutation.clientID !== this.#clientID) return;
    this.#lastAppendedID = mutation.id;
    this.#log.append(mutation).catch((error: unknown) => this.#logger.error('Could not log a mutation', error));
    if (++this.#appended >= MAX_LOG_ENTRIES_BEFORE_CHECKPOINT) void this.checkpoint();
  }

  /** After a server update: drops entries of this client the server acknowledged. */
  acknowledged(): void {
    const store = this.#store;
    if (store === undefined || this.#appended === 0) return;
    const acked = store.lastMutationID;
    const clientID = this.#clientID;
    this.#log
      .removeWhere((entry) => entry.clientID === clientID && entry.id <= acked)
      .catch((error: unknown) => this.#logger.error('Could not trim the mutation log', error));
  }

  /** Stores the state now and drops the entries it holds (after a checkpoint already running, if any). */
  async checkpoint(): Promise<void> {
    while (this.#checkpointing !== undefined) await this.#checkpointing;
    const store = this.#store;
    if (store === undefined || store.closed) return;
    this.#checkpointing = this.#storeAndTrim(store).finally(() => {
      this.#checkpointing = undefined;
    });
    return this.#checkpointing;
  }

  async #storeAndTrim(store: Store): Promise<void> {
    const upTo = this.#lastAppendedID;
    const clientID = this.#clientID;
    this.#appended = 0;
    try {
      await store.persist();
      await this.#log.removeWhere((entry) => entry.clientID === clientID && entry.id <= upTo);
    } catch (error) {
      this.#logger.error('Could not store the state and trim the mutation log', error);
    }
  }
}

function toPending(entry: LoggedMutation): PendingMutation {
  return { id: entry.id, clientID: entry.clientID, name: entry.name, args: entry.args as PendingMutation['args'], timestamp: entry.timestamp };
}
