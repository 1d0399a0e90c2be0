/** withRead/withWrite on top of read()/write(), for every DagStore (and the kv stores' reads and writes). */

/** Runs `fn` in what `open` opens and releases it when `fn` returns or throws (a write not committed is rolled back). */
export async function withTransaction<T extends { release(): void }, R>(open: () => Promise<T>, fn: (tx: T) => R | Promise<R>): Promise<R> {
  const tx = await open();
  try {
    return await fn(tx);
  } finally {
    tx.release();
  }
}
