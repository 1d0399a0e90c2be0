import type { ReadonlyJSONValue } from '../protocol/json';
import type { WriteTransaction } from '../src/db/transaction-types';

/**
 * The mutators every roomsync server registers, so the client tests and the
 * conformance suite can drive any server without app code.
 */
export const conformanceMutators = {
  async put(tx: WriteTransaction, args: { key: string; value: ReadonlyJSONValue }): Promise<void> {
    if (args?.value === undefined) throw new TypeError('put needs {key, value}');
    await tx.put(args.key, args.value);
  },
  async del(tx: WriteTransaction, args: { key: string }): Promise<void> {
    await tx.del(args?.key);
  },
  /** Adds `delta` to the number at `key`; a missing key (or a value that is not a number) counts as 0. */
  async increment(tx: WriteTransaction, args: { key: string; delta: number }): Promise<void> {
    if (typeof args?.delta !== 'number') throw new TypeError('increment needs {key, delta: number}');
    const current = await tx.get(args.key);
    const base = typeof current === 'number' ? current : 0;
    await tx.put(args.key, base + args.delta);
  },
};

export type ConformanceMutators = typeof conformanceMutators;
