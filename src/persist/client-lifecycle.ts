/**
 * The timers of a client that lives for months (SPEC.md §9): a heartbeat every
 * HEARTBEAT_INTERVAL_MS (a client whose record is gone learns it here), client
 * and client-group garbage collection every CLIENT_GC_INTERVAL_MS /
 * CLIENT_GROUP_GC_INTERVAL_MS, and old-database cleanup first after
 * OLD_DB_CLEANUP_INITIAL_DELAY_MS, then every OLD_DB_CLEANUP_INTERVAL_MS.
 */
import {
  CLIENT_GC_INTERVAL_MS,
  CLIENT_GROUP_GC_INTERVAL_MS,
  HEARTBEAT_INTERVAL_MS,
  OLD_DB_CLEANUP_INITIAL_DELAY_MS,
  OLD_DB_CLEANUP_INTERVAL_MS,
} from '../../protocol/constants';
import type { TimerHandle, Timers } from '../connection/environment';
import type { PersistentDagStore } from '../dag/store';
import type { KvProvider } from '../kv/provider';
import type { KvStore } from '../kv/types';
import { collectClients, collectGroups, collectLogs, heartbeat } from './collect';
import { cleanupOldStores } from './old-store-cleanup';
import { Periodic } from './periodic';
import type { StoreRegistry } from './store-registry';

/** The registry hears of this store after the first read, or this long after the client opened it when nothing reads. */
export const REGISTRY_TOUCH_DELAY_MS = 1_000;

export interface LifecycleLogger {
  error(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  debug?(message: string, ...details: unknown[]): void;
}

export interface ClientLifecycleOptions {
  readonly perdag: PersistentDagStore;
  readonly logKv: KvStore;
  /**
   * The log lives in memory beside the durable data store (LocalStores.logInMemory):
   * groups and logs are not collected here (an empty log would let a group whose only
   * record is another client's durable log go); the tabs with a durable log collect them.
   */
  readonly logInMemory?: boolean;
  readonly clientID: string;
  readonly dataName: string;
  readonly registry: StoreRegistry;
  readonly provider: KvProvider;
  readonly now: () => number;
  readonly timers: Timers;
  readonly logger: LifecycleLogger;
  /** This client's record is gone (collected by another tab while this one slept). */
  readonly onClientStateNotFound: () => void;
}

export class ClientLifecycle {
  readonly #o: ClientLifecycleOptions;
  readonly #heartbeat: Periodic;
  readonly #clientGC: Periodic;
  readonly #groupGC: Periodic;
  readonly #cleanup: Periodic;
  #touchTimer: TimerHandle | undefined;
  #touching: Promise<void> | undefined;
  #stopped = false;

  constructor(options: ClientLifecycleOptions) {
    this.#o = options;
    const { timers, logger } = options;
    const every = (task: () => Promise<void>, intervalMs: number, what: string, firstDelayMs = intervalMs) =>
      new Periodic(task, { timers, intervalMs, firstDelayMs, onError: (e) => logger.error(`${what} failed`, e) });
    this.#heartbeat = every(() => this.heartbeat(), HEARTBEAT_INTERVAL_MS, 'Heartbeat');
    this.#clientGC = every(() => this.collectClients(), CLIENT_GC_INTERVAL_MS, 'Client garbage collection');
    this.#groupGC = every(() => this.collectGroups(), CLIENT_GROUP_GC_INTERVAL_MS, 'Client-group garbage collection');
    this.#cleanup = every(() => this.cleanupOldStores(), OLD_DB_CLEANUP_INTERVAL_MS, 'Old-database cleanup', OLD_DB_CLEANUP_INITIAL_DELAY_MS);
  }

  /** Starts the timers; the registry hears of the store once `firstRead` resolved (the page's first read is served), or after REGISTRY_TOUCH_DELAY_MS. */
  start(firstRead: Promise<void> = Promise.resolve()): void {
    for (const p of [this.#heartbeat, this.#clientGC, this.#groupGC, this.#cleanup]) p.start();
    let touched = false;
    const touch = () => {
      if (touched || this.#stopped) return;
      touched = true;
      if (this.#touchTimer !== undefined) this.#o.timers.clearTimeout(this.#touchTimer);
      this.#touchTimer = undefined;
      this.#touching = this.#o.registry
        .touch(this.#o.dataName, this.#o.now())
        .catch((e: unknown) => this.#o.logger.error('Could not register the local store', e));
    };
    this.#touchTimer = this.#o.timers.setTimeout(touch, REGISTRY_TOUCH_DELAY_MS);
    void firstRead.then(touch);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#touchTimer !== undefined) this.#o.timers.clearTimeout(this.#touchTimer);
    this.#touchTimer = undefined;
    await Promise.all([this.#heartbeat, this.#clientGC, this.#groupGC, this.#cleanup].map((p) => p.stop()));
    await this.#touching;
  }

  async heartbeat(): Promise<void> {
    const now = this.#o.now();
    const found = await heartbeat(this.#o.perdag, this.#o.clientID, now);
    if (!found) {
      this.#o.logger.info('This client was collected from the local store while it was away');
      this.#o.onClientStateNotFound();
      return;
    }
    await this.#o.registry.touch(this.#o.dataName, now);
  }

  async collectClients(): Promise<void> {
    const removed = await collectClients(this.#o.perdag, this.#o.clientID, this.#o.now());
    if (removed.length > 0) this.#o.logger.info(`Collected ${removed.length} client(s) silent for more than 7 days`);
    if (this.#o.logInMemory !== true) await collectLogs(this.#o.perdag, this.#o.logKv);
  }

  async collectGroups(): Promise<void> {
    if (this.#o.logInMemory === true) return;
    const removed = await collectGroups(this.#o.perdag, this.#o.logKv);
    if (removed.length > 0) this.#o.logger.info(`Collected ${removed.length} client group(s) no client uses`);
  }

  async cleanupOldStores(): Promise<void> {
    const { deleted, keptWithPending } = await cleanupOldStores(this.#o.registry, this.#o.provider, new Set([this.#o.dataName]), this.#o.now());
    if (deleted.length > 0) this.#o.logger.info(`Deleted ${deleted.length} unused local store(s): ${deleted.join(', ')}`);
    if (keptWithPending.length > 0) this.#o.logger.debug?.(`Kept unused local store(s) that hold unpushed mutations: ${keptWithPending.join(', ')}`);
  }
}
