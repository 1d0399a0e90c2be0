import type { ScanOptions } from './transaction-types';
import { encodeIndexKey, encodeIndexPrefix, encodeIndexSecondary } from './index-key';

export type KeyCompare = (a: string, b: string) => number;

/** A scan expressed in the key space of one map (the primary map or an index map). */
export interface NormalizedScan {
  /** undefined: the primary map. */
  readonly indexName: string | undefined;
  /** Every returned map key starts with this. */
  readonly prefix: string;
  /** Iteration starts here (inclusive); never before `prefix`. */
  readonly fromKey: string;
  /** Leading map keys equal to this (or, when `skipPrefix`, starting with it) are skipped. */
  readonly skip: string | undefined;
  readonly skipPrefix: boolean;
  readonly limit: number;
}

export function normalizeScan(options: ScanOptions | undefined, compare: KeyCompare): NormalizedScan {
  const limit = options?.limit ?? Infinity;
  if (options?.indexName === undefined) {
    const prefix = options?.prefix ?? '';
    const start = options?.start;
    const fromKey = start && compare(start.key, prefix) > 0 ? start.key : prefix;
    const skip = start?.exclusive ? start.key : undefined;
    return { indexName: undefined, prefix, fromKey, skip, skipPrefix: false, limit };
  }
  const prefix = encodeIndexPrefix(options.prefix ?? '');
  let fromKey = prefix;
  let skip: string | undefined;
  let skipPrefix = false;
  const start = options.start;
  if (start) {
    const [secondary, primary] = typeof start.key === 'string' ? [start.key, undefined] : start.key;
    const encoded = primary === undefined ? encodeIndexSecondary(secondary) : encodeIndexKey(secondary, primary);
    if (compare(encoded, prefix) > 0) fromKey = encoded;
    if (start.exclusive) {
      skip = encoded;
      skipPrefix = primary === undefined;
    }
  }
  return { indexName: options.indexName, prefix, fromKey, skip, skipPrefix, limit };
}
