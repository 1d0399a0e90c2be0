import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeKvProviderContract } from '../kv/provider-contract';
import { SqliteKvProvider } from './sqlite-kv-provider';

describeKvProviderContract('SQLite', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'roomsync-sqlite-contract-'));
  return {
    provider: () => new SqliteKvProvider({ dataDir }),
    async cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
