import { MemoryStore } from '../kv/memory-store';
import type { KvStore } from '../kv/types';
import type { StoreLogger } from './logger';
import { createStore, type CreateStoreOptions, type Store } from './store';
import type { MutatorDefs, WriteTransaction } from './transaction-types';
import type { ReadonlyJSONValue } from '../../protocol/json';

/** Timers that fire only when the test says so. */
export class ManualTimers {
  private next = 1;
  readonly pending = new Map<number, () => void>();
  setTimeout = (fn: () => void) => {
    const id = this.next++;
    this.pending.set(id, fn);
    return id;
  };
  clearTimeout = (id: unknown) => {
    this.pending.delete(id as number);
  };
  runAll(): void {
    const fns = [...this.pending.values()];
    this.pending.clear();
    for (const fn of fns) fn();
  }
}

export class RecordingLogger implements StoreLogger {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];
  error(message: string): void {
    this.errors.push(message);
  }
  warn(message: string): void {
    this.warnings.push(message);
  }
}

export const basicMutators = {
  put: async (tx: WriteTransaction, { key, value }: { key: string; value: ReadonlyJSONValue }) => {
    await tx.put(key, value);
  },
  del: async (tx: WriteTransaction, key: string) => tx.del(key),
  inc: async (tx: WriteTransaction, { key, by }: { key: string; by: number }) => {
    const v = (await tx.get(key)) ?? 0;
    await tx.put(key, (v as number) + by);
  },
} satisfies MutatorDefs;

let counter = 0;

export async function makeTestStore(
  options: Partial<CreateStoreOptions> & { kvStore?: KvStore } = {},
): Promise<{ store: Store; logger: RecordingLogger; timers: ManualTimers; kv: KvStore }> {
  const logger = new RecordingLogger();
  const timers = new ManualTimers();
  const kv = options.kvStore ?? new MemoryStore(`test-${++counter}-${Math.random()}`);
  let now = 1000;
  const store = await createStore({
    clientID: 'c1',
    mutators: basicMutators,
    clock: () => now++,
    logger,
    timers,
    ...options,
    kvStore: kv,
  });
  return { store, logger, timers, kv };
}
