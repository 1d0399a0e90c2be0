/**
 * When mutation recovery runs: once connected after start-up, every
 * MUTATION_RECOVERY_INTERVAL_MS while the client lives, and once connected
 * again after the network came back or a round was interrupted. One round at a time; a round only runs
 * while the socket is connected.
 *
 * A round first checks cheaply whether there could be anything to recover
 * (another store of this user and room, or another group in this client's
 * store that is not disabled); only then does it load the code that finds and
 * recovers the groups (other-stores.ts, a lazy chunk: most page loads never
 * need it).
 */
import type { Timers } from '../connection/environment';
import type { RecoveryChannel, RecoveryLogger } from './mutation-recovery';
import { Periodic } from './periodic';
import type { RecoveryScope } from './recoverable-groups';
import { readGroups } from './records';
import { loadOtherStores, storeKit } from './store-kit';
import type { RegisteredStore, StoreRegistry } from './store-registry';

/** How often mutation recovery looks again for other groups' unpushed mutations. */
export const MUTATION_RECOVERY_INTERVAL_MS = 5 * 60 * 1000;

/** Where recovery looks (every store of the origin is read from the registry at each round), and how it runs. */
export interface RecoveryRunnerOptions extends Omit<RecoveryScope, 'stores' | 'kit'> {
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
    const stores = await o.registry.stores(o.now());
    if (!(await mayHoldRecoverableGroups(o, stores))) return;
    const { findRecoverableGroups, recoverRound } = await loadOtherStores();
    const round = await findRecoverableGroups({ ...o, stores, kit: storeKit });
    try {
      const outcomes = await recoverRound(o.channel, round, o.logger, o.onVersionNotSupported);
      // The socket failed or the pull timed out: try again as soon as it is connected again.
      if (outcomes.includes('interrupted')) this.#runOnConnect = true;
    } finally {
      await round.close();
    }
  }
}

/**
 * False when findRecoverableGroups would find nothing for sure: no other
 * store of this user and room, and no group but this client's (or a disabled
 * one) in its own store.
 */
async function mayHoldRecoverableGroups(scope: Omit<RecoveryScope, 'stores' | 'kit'>, stores: readonly RegisteredStore[]): Promise<boolean> {
  if (stores.some((s) => s.dataName !== scope.dataName && s.userID === scope.userID && s.roomID === scope.roomID)) return true;
  const groups = await scope.perdag.withRead((r) => readGroups(r));
  for (const [clientGroupID, group] of groups) if (clientGroupID !== scope.clientGroupID && !group.disabled) return true;
  return false;
}
