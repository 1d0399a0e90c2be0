import { describe, expect, it } from 'vitest';
import { matchesOnly } from './check-filter';

describe('--only', () => {
  it('matches everything when absent', () => {
    expect(matchesOnly('push/cookie-chain', undefined)).toBe(true);
    expect(matchesOnly('push/cookie-chain', ' ')).toBe(true);
  });

  it('matches substrings and whole-name globs, comma-separated', () => {
    expect(matchesOnly('push/cookie-chain', 'cookie')).toBe(true);
    expect(matchesOnly('push/cookie-chain', 'connect/*')).toBe(false);
    expect(matchesOnly('connect/missing-lmid', 'connect/*')).toBe(true);
    expect(matchesOnly('connect/missing-lmid', '*lmid')).toBe(true);
    expect(matchesOnly('connect/lmid-ahead', '*lmid')).toBe(false);
    expect(matchesOnly('pull/recovery', 'auth, pull/')).toBe(true);
  });
});
