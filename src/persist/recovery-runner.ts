/**
 * When mutation recovery runs: once connected after start-up, every
 * MUTATION_RECOVERY_INTERVAL_MS while the client lives, and once connected
 * again after the network came back or a round was interrupted. One round at a time; a round only runs
 * while the socket is connected.
 */
import type { Timers } from '../connection/environment';
import { recoverRound, type RecoveryChannel, type RecoveryLogger } from './mutation-recovery';
import { Periodic } from './periodic';
import { findRecoverableGroups, type RecoveryScope } from './recoverable-groups';
import type { StoreRegistry } from './store-registry';

/** How often mutation recovery looks again for other groups' unpushed mutations. */
export const MUTATION_RECOVERY_INTERVAL_MS = 5 * 60 * 1000;

/** Where recovery looks (every store of the origin is read from the registry at each round), and how it runs. */
export interface RecoveryRunnerOptions extends Omit<RecoveryScope, 'stores'> {
  readonly channel: RecoveryChannel;
  readonly registry: StoreRegistry;
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

  async #round(): Promise<void> {
    const o = this.#o;
    if (!o.channel.connected) return;
    const round = await findRecoverableGroups({ ...o, stores: await o.registry.stores(o.now()) });
    try {
      const outcomes = await recoverRound(o.channel, round, o.logger, o.onVersionNotSupported);
      // The socket failed or the pull timed out: try again as soon as it is connected again.
      if (outcomes.includes('interrupted')) this.#runOnConnect = true;
    } finally {
      await round.close();
    }
  }
}
