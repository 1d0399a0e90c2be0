import type { ReadonlyJSONValue } from '../../protocol/json';
import type { Clock, TimerHandle, Timers } from '../connection/environment';
import type { PresenceEntry } from './presence-entry';
import type { CheckedPresenceState } from './presence-state';

/** What the sender takes from the start-up code (it is loaded lazily with presence-client.ts, which says why). */
export interface PresenceSenderDeps {
  readonly clock: Clock;
  readonly timers: Timers;
  /** deepEqualJSON. */
  readonly equalJSON: (a: ReadonlyJSONValue | undefined, b: ReadonlyJSONValue | undefined) => boolean;
  /** PRESENCE_SEND_INTERVAL_MS. */
  readonly sendIntervalMs: number;
}

/**
 * Brings the server's entry of this client to the state the app set last.
 * It sends only while connected and only once the server has an entry for
 * this client; each state at most once per connection (a server that does
 * not take it is not asked again and again), and at most one send per
 * PRESENCE_SEND_INTERVAL_MS (a moving cursor sends its latest position).
 * After a reconnect it sends again only if the server's entry lost the state
 * (the client was gone longer than the server's grace period).
 */
export class PresenceSender {
  #connected = false;
  #entry: PresenceEntry | undefined;
  #desired: CheckedPresenceState | undefined;
  #sentOnConnection: string | undefined;
  #lastSendAt = -Infinity;
  #timer: TimerHandle | undefined;

  constructor(
    private readonly deps: PresenceSenderDeps,
    private readonly send: (state: CheckedPresenceState) => void,
  ) {}

  setDesired(state: CheckedPresenceState): void {
    this.#desired = state;
    this.#reconcile();
  }

  /** This client's stored entry changed (or is gone: undefined). */
  setEntry(entry: PresenceEntry | undefined): void {
    this.#entry = entry;
    this.#reconcile();
  }

  setConnected(connected: boolean): void {
    if (connected === this.#connected) return;
    this.#connected = connected;
    this.#sentOnConnection = undefined;
    this.#reconcile();
  }

  stop(): void {
    this.#connected = false;
    this.#cancel();
  }

  #reconcile(): void {
    const desired = this.#desired;
    const entry = this.#entry;
    if (!this.#connected || desired === undefined || entry === undefined) return this.#cancel();
    if (desired.json === this.#sentOnConnection || this.deps.equalJSON(entry.state, desired.value)) return this.#cancel();
    const waitMs = this.#lastSendAt + this.deps.sendIntervalMs - this.deps.clock.monotonicNow();
    if (waitMs > 0) {
      this.#timer ??= this.deps.timers.setTimeout(() => {
        this.#timer = undefined;
        this.#reconcile();
      }, waitMs);
      return;
    }
    this.#cancel();
    this.#sentOnConnection = desired.json;
    this.#lastSendAt = this.deps.clock.monotonicNow();
    this.send(desired);
  }

  #cancel(): void {
    if (this.#timer === undefined) return;
    this.deps.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
