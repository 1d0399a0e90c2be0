/**
 * A child process of the cross-process test: says `ready`, waits for `go` on
 * stdin, then increments the counter `n` of one store COUNT times from each
 * of WRITERS store instances at once (read-modify-write in one transaction),
 * and says `done`.
 *
 * Usage: node --import tsx increment-counter.ts DATA_DIR STORE_NAME WRITERS COUNT
 */
import { createInterface } from 'node:readline';
import { SqliteKvProvider } from '../sqlite-kv-provider';

const [dataDir, storeName, writers, count] = process.argv.slice(2);
if (dataDir === undefined || storeName === undefined) throw new Error('usage: increment-counter.ts DATA_DIR STORE_NAME WRITERS COUNT');

const stores = await Promise.all(Array.from({ length: Number(writers) }, () => new SqliteKvProvider({ dataDir }).open(storeName)));
process.stdout.write('ready\n');
await new Promise<void>((go) => createInterface({ input: process.stdin }).once('line', () => go()));
await Promise.all(
  stores.map(async (store) => {
    for (let i = 0; i < Number(count); i++) {
      const w = await store.write();
      const n = ((await w.get('n')) as number | undefined) ?? 0;
      await w.put('n', n + 1);
      await w.commit();
    }
  }),
);
await Promise.all(stores.map((store) => store.close()));
process.stdout.write('done\n');
process.exit(0);
