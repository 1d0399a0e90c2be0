import type { Clock } from './clock';

/**
 * A rate limit: `ratePerSecond` sustained, bursts up to `burst`. `take` spends
 * and returns how long to wait (ms) before the spender is back within its
 * limit; 0 when it still is.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  take(amount: number): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.ratePerSecond) / 1000);
    this.last = now;
    this.tokens -= amount;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 1000) / this.ratePerSecond);
  }
}
