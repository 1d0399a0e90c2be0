/**
 * For tests: a fresh data directory per test, and the stores the test opened
 * through `open`; after each test the stores are closed and the directory removed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { KvProvider } from '../../kv/provider';
import type { KvStore } from '../../kv/types';

export function useTempDataDir(prefix: string) {
  let dir = '';
  const stores: KvStore[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir(): string {
      return dir;
    },
    async open(provider: KvProvider, name: string): Promise<KvStore> {
      const store = await provider.open(name);
      stores.push(store);
      return store;
    },
  };
}
