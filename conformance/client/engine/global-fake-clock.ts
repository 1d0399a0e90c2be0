import { install, type Clock, type FakeMethod } from '@sinonjs/fake-timers';
import type { EngineClock } from './engine-clock';

/** The wall clock's start in every scenario; the monotonic clock (performance.now) starts at 0. */
export const FAKE_EPOCH_MS = Date.UTC(2025, 0, 1);

/**
 * Only what measures or waits for time. setImmediate, process.nextTick and
 * queueMicrotask stay real: they carry no delay, and the loopback sockets and
 * promise work of the client and of the scripted server ride on them.
 */
const FAKED: FakeMethod[] = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'];

/**
 * The clock of the public-API path: @sinonjs/fake-timers installed on the
 * global object, so a client that takes no injected clock runs on it.
 * Nothing fires on its own; the engine fires timers one at a time.
 */
export class GlobalFakeClock implements EngineClock {
  readonly #clock: Clock;

  private constructor(clock: Clock) {
    this.#clock = clock;
  }

  static install(): GlobalFakeClock {
    return new GlobalFakeClock(install({ now: FAKE_EPOCH_MS, toFake: FAKED }));
  }

  now(): number {
    return this.#clock.now - FAKE_EPOCH_MS;
  }

  nextDueAt(): number | undefined {
    const timer = this.#clock.timerHeap?.peek();
    return timer?.callAt === undefined ? undefined : timer.callAt - FAKE_EPOCH_MS;
  }

  fireNext(): void {
    this.#clock.next();
  }

  jumpTo(ms: number): void {
    const by = ms - this.now();
    if (by > 0) this.#clock.tick(by);
  }

  uninstall(): void {
    this.#clock.uninstall();
  }
}
