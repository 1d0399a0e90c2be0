import { PING_INTERVAL_MS } from '../../protocol/constants';
import type { Logger } from '../logging/logger';
import type { Clock, RandomSource, TimerHandle, Timers } from './environment';
import { nextPushFrame } from './push-batches';
import type { PushEnvelope } from './push-frame';
import { DEFAULT_PUSH_LIMITS, type PushLimits } from './push-limits';
import { PushTracker } from './push-tracker';
import { randomID } from './random-id';
import type { SyncTarget } from './sync-target';

/** Push frames sent and not yet acknowledged by a poke, at most: enough to keep the server busy, few enough to bound what is queued. */
export const PUSH_WINDOW_FRAMES = 8;
/** No new frame while the socket holds more than this unsent (where it tells: bufferedAmount). */
export const PUSH_MAX_BUFFERED_BYTES = 1024 * 1024;
/** A full window with no acknowledgement for this long is counted as delivered (a server need not poke for mutations it already had). */
export const PUSH_WINDOW_STALL_MS = PING_INTERVAL_MS;

/** The connected socket as the pusher sees it. */
export interface PushChannel {
  readonly logger: Logger;
  /** Sends a push frame; false when it could not (the failure is already reported). */
  sendPush(text: string, logger: Logger): boolean;
  /** Bytes the socket holds unsent (its bufferedAmount); 0 where it does not tell. */
  bufferedBytes(): number;
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
  /** @default DEFAULT_PUSH_LIMITS */
  readonly limits?: PushLimits;
  /** @default PUSH_WINDOW_FRAMES */
  readonly windowFrames?: number;
  /** The connected socket, or null while not connected (nothing is pushed then). */
  readonly channel: () => PushChannel | null;
  /** Called when `awaitingAcks` may have become false. */
  readonly onSettled?: () => void;
}

/**
 * Pushes pending mutations in id order, resuming after the last one sent on
 * this socket: as many frames as the limits require (mutation count and
 * bytes), and no more than the window of unacknowledged frames allows; pokes
 * that acknowledge frames make room for more. After reset() (a new socket)
 * it starts again from the first pending mutation.
 */
export class Pusher {
  readonly #options: PusherOptions;
  readonly #limits: PushLimits;
  readonly #windowFrames: number;
  readonly #sent = new PushTracker();
  #scheduled = false;
  /** The last flush stopped at a full window (with mutations left to send, perhaps). */
  #blocked = false;
  #stallTimer: TimerHandle | undefined;

  constructor(options: PusherOptions) {
    this.#options = options;
    this.#limits = options.limits ?? DEFAULT_PUSH_LIMITS;
    this.#windowFrames = options.windowFrames ?? PUSH_WINDOW_FRAMES;
  }

  /** Whether pokes acknowledging pushes of this socket are still to come: frames in flight, or frames about to go. */
  get awaitingAcks(): boolean {
    return this.#sent.framesInFlight > 0 || this.#blocked || this.#scheduled;
  }

  /** A new socket (or none): everything pending is unsent again. */
  reset(): void {
    this.#sent.reset();
    this.#blocked = false;
    this.#cancelStallTimer();
  }

  /**
   * A poke arrived (not yet applied) with these acknowledgements. Once the
   * frames in flight are down to half the window, pushes more: the server
   * still has work queued, and each pass over the pending list fills half a
   * window rather than one frame.
   */
  acknowledged(lastMutationIDChanges: Readonly<Record<string, number>>): void {
    if (!this.#sent.acknowledge(lastMutationIDChanges)) return;
    this.#cancelStallTimer();
    if (this.#sent.framesInFlight <= this.#windowFrames / 2) this.schedule();
    else this.#startStallTimer();
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
    this.#blocked = false;
    const channel = this.#options.channel();
    if (channel !== null) this.#send(channel);
    if (!this.awaitingAcks) this.#options.onSettled?.();
  }

  /** Walks the pending list once, up to where the window fills. */
  #send(channel: PushChannel): void {
    if (this.#windowFull(channel)) return this.#block();
    const pending = this.#options.syncTarget.pendingMutations();
    const isUnsent = this.#sent.unsentTest();
    for (let start = 0; start < pending.length; ) {
      if (this.#windowFull(channel)) return this.#block();
      const envelope: PushEnvelope = {
        timestamp: this.#options.clock.now(),
        clientGroupID: this.#options.clientGroupID,
        schemaVersion: this.#options.schemaVersion,
        requestID: randomID(this.#options.random),
      };
      const { batch, frame } = nextPushFrame(pending, start, envelope, this.#limits, isUnsent);
      if (batch.mutations.length === 0) return;
      const logger = channel.logger.withContext('requestID', envelope.requestID);
      if (batch.frameBytes > this.#limits.maxFrameBytes) {
        logger.warn?.(`Mutation ${batch.mutations[0]!.name} takes a ${batch.frameBytes}-byte push frame, over the ${this.#limits.maxFrameBytes} bytes every server accepts; sending it anyway`);
      }
      if (!channel.sendPush(frame, logger)) return;
      this.#sent.markSent(batch.mutations);
      start = batch.next;
      logger.debug?.(`Pushed ${batch.mutations.length} mutation(s), ids ${batch.mutations[0]!.id}–${batch.mutations.at(-1)!.id}`);
    }
  }

  /** Stopped at a full window: the next acknowledgement (or the stall timer) resumes. */
  #block(): void {
    this.#blocked = true;
    this.#startStallTimer();
  }

  #windowFull(channel: PushChannel): boolean {
    const inFlight = this.#sent.framesInFlight;
    return inFlight >= this.#windowFrames || (inFlight > 0 && channel.bufferedBytes() > PUSH_MAX_BUFFERED_BYTES);
  }

  #startStallTimer(): void {
    if (this.#stallTimer !== undefined) return;
    this.#stallTimer = this.#options.timers.setTimeout(() => {
      this.#stallTimer = undefined;
      this.#sent.forgetInFlight();
      this.schedule();
    }, PUSH_WINDOW_STALL_MS);
  }

  #cancelStallTimer(): void {
    if (this.#stallTimer === undefined) return;
    this.#options.timers.clearTimeout(this.#stallTimer);
    this.#stallTimer = undefined;
  }
}
