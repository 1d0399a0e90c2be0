import { describe, expect, it } from 'vitest';
import { lazyChunk } from './lazy-chunk';

describe('a lazy chunk', () => {
  it('loads once for calls at the same time and after; a failed load is not kept, the next call tries again', async () => {
    let loads = 0;
    let failing = true;
    const load = lazyChunk(async () => {
      loads++;
      if (failing) throw new TypeError('Failed to fetch dynamically imported module');
      return { loaded: loads };
    });
    const [a, b] = await Promise.allSettled([load(), load()]);
    expect([a!.status, b!.status, loads]).toEqual(['rejected', 'rejected', 1]);
    failing = false;
    expect(await load()).toEqual({ loaded: 2 });
    failing = true;
    expect(await load()).toEqual({ loaded: 2 });
    expect(loads).toBe(2);
  });
});
