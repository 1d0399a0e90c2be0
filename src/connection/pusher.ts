import { PUSH_VERSION } from '../../protocol/constants';
import type { Logger } from '../logging/logger';
import type { Upstream } from '../protocol/messages';
import type { Clock, RandomSource, Timers } from './environment';
import { PushTracker } from './push-tracker';
import { randomID } from './random-id';
import type { SyncTarget } from './sync-target';

/** The connected socket as the pusher sees it. */
export interface PushChannel {
  readonly logger: Logger;
  /** Sends a frame; false when it could not (the failure is already reported). */
  send(message: Upstream, logger: Logger): boolean;
}

export interface PusherOptions {
  readonly syncTarget: SyncTarget;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly random: RandomSource;
  readonly clientGroupID: string;
  readonly schemaVersion: string;
  /** 0: push in the same microtask batch as the mutation. */
  readonly pushDelayMs: number;
  /** The connected socket, or null while not connected (nothing is pushed then). */
  readonly channel: () => PushChannel | null;
}

/**
 * Pushes pending mutations: each flush sends every pending mutation not yet
 * sent on this socket in ONE push frame, in id order (a batch; the protocol
 * allows it). After reset() (a new socket) it starts again from the first pending.
 */
export class Pusher {
  readonly #options: PusherOptions;
  readonly #sent = new PushTracker();
  #scheduled = false;

  constructor(options: PusherOptions) {
    this.#options = options;
  }

  /** A new socket (or none): everything pending is unsent again. */
  reset(): void {
    this.#sent.reset();
  }

  schedule(): void {
    if (this.#scheduled || this.#options.channel() === null) return;
    this.#scheduled = true;
    const run = () => {
      this.#scheduled = false;
      this.#flush();
    };
    if (this.#options.pushDelayMs <= 0) queueMicrotask(run);
    else this.#options.timers.setTimeout(run, this.#options.pushDelayMs);
  }

  #flush(): void {
    const channel = this.#options.channel();
    if (channel === null) return;
    const mutations = this.#sent.unsent(this.#options.syncTarget.pendingMutations());
    if (mutations.length === 0) return;
    const requestID = randomID(this.#options.random);
    const logger = channel.logger.withContext('requestID', requestID);
    const sent = channel.send(
      [
        'push',
        {
          timestamp: this.#options.clock.now(),
          clientGroupID: this.#options.clientGroupID,
          mutations,
          pushVersion: PUSH_VERSION,
          schemaVersion: this.#options.schemaVersion,
          requestID,
        },
      ],
      logger,
    );
    if (!sent) return;
    this.#sent.markSent(mutations);
    logger.debug?.(`Pushed ${mutations.length} mutation(s), ids ${mutations[0]!.id}–${mutations.at(-1)!.id}`);
  }
}
