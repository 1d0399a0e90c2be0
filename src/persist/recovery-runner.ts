/**
 * When mutation recovery runs: once connected after start-up, every
 * MUTATION_RECOVERY_INTERVAL_MS while the client lives, and once connected
 * again after the network came back or a round was interrupted. One round at a time; a round only runs
 * while the socket is connected.
 */
import type { Timers } from '../connection/environment';
import type { PersistentDagStore } from '../dag/store';
import type { KvProvider } from '../kv/provider';
import type { KvStore } from '../kv/types';
import { recoverRound, type RecoveryChannel, type RecoveryLogger } from './mutation-recovery';
import { Periodic } from './periodic';
import { findRecoverableGroups } from './recoverable-groups';
import type { StoreRegistry } from './store-registry';

/** How often mutation recovery looks again for other groups' unpushed mutations. */
export const MUTATION_RECOVERY_INTERVAL_MS = 5 * 60 * 1000;

export interface RecoveryRunnerOptions {
  readonly channel: RecoveryChannel;
  readonly registry: StoreRegistry;
  readonly provider: KvProvider;
  readonly dataName: string;
  readonly perdag: PersistentDagStore;
  readonly logKv: KvStore;
  readonly clientGroupID: string;
  readonly userID: string;
  readonly roomID: string;
  readonly now: () => number;
  readonly timers: Timers;
  readonly logger: RecoveryLogger;
  readonly onVersionNotSupported: () => void;
}

export class RecoveryRunner {
  readonly #o: RecoveryRunnerOptions;
  readonly #periodic: Periodic;
  #runOnConnect = true;

  constructor(options: RecoveryRunnerOptions) {
    this.#o = options;
    this.#periodic = new Periodic(() => this.#round(), {
      timers: options.timers,
      intervalMs: MUTATION_RECOVERY_INTERVAL_MS,
      onError: (error) => options.logger.error('Mutation recovery failed', error),
    });
  }

  /** The socket is connected (again). */
  connected(): void {
    if (!this.#runOnConnect) return;
    this.#runOnConnect = false;
    this.#periodic.start();
    void this.#periodic.runNow();
  }

  /** The network came back: recover at the next connect. */
  networkOnline(): void {
    this.#runOnConnect = true;
  }

  stop(): Promise<void> {
    return this.#periodic.stop();
  }

  /** Runs one round now (for tests and the app). */
  runNow(): Promise<void> {
    return this.#periodic.runNow();
  }

  async #round(): Promise<void> {
    const o = this.#o;
    if (!o.channel.connected) return;
    const round = await findRecoverableGroups({
      provider: o.provider,
      dataName: o.dataName,
      perdag: o.perdag,
      logKv: o.logKv,
      clientGroupID: o.clientGroupID,
      userID: o.userID,
      roomID: o.roomID,
      stores: await o.registry.stores(o.now()),
    });
    try {
      const outcomes = await recoverRound(o.channel, round, o.logger, o.onVersionNotSupported);
      // The socket failed or the pull timed out: try again as soon as it is connected again.
      if (outcomes.includes('interrupted')) this.#runOnConnect = true;
    } finally {
      await round.close();
    }
  }
}
