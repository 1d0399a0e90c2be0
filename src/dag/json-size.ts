/**
 * A fast estimate of the encoded size of a JSON value in bytes, used to size
 * B+tree nodes and cache entries. It walks the value once and allocates
 * nothing; strings count their UTF-16 length (exact for ASCII).
 *
 * The size of a value: a string its length and its quotes, a number 8, null
 * or a boolean 4; an array or object its brackets, and per element its size
 * and a separator (per property also its key, quoted, and a colon).
 * Anything else (undefined) counts nothing.
 *
 * Strings and numbers inside an array or object are counted in place, not
 * by a call each: a B+tree node is mostly `[key, hash]` or `[key, value]`
 * pairs, and a store's start-up sizes its first nodes while its code is
 * still cold, where each call costs.
 */
import type { ReadonlyJSONValue } from '../../protocol/json';

const NUMBER_BYTES = 8;
const NULL_OR_BOOL_BYTES = 4;
const QUOTES_BYTES = 2;
const BRACKETS_BYTES = 2;
const SEPARATOR_BYTES = 1;

export function estimateJSONSize(value: ReadonlyJSONValue): number {
  if (typeof value === 'string') return value.length + QUOTES_BYTES;
  if (typeof value !== 'object') return typeof value === 'number' ? NUMBER_BYTES : typeof value === 'boolean' ? NULL_OR_BOOL_BYTES : 0;
  if (value === null) return NULL_OR_BOOL_BYTES;
  let size = BRACKETS_BYTES;
  if (Array.isArray(value)) {
    const arr = value as readonly ReadonlyJSONValue[];
    for (let i = 0; i < arr.length; i++) {
      const v = arr[i]!;
      size += (typeof v === 'string' ? v.length + QUOTES_BYTES : typeof v === 'number' ? NUMBER_BYTES : estimateJSONSize(v)) + SEPARATOR_BYTES;
    }
    return size;
  }
  const obj = value as { readonly [key: string]: ReadonlyJSONValue };
  for (const key in obj) {
    const v = obj[key];
    if (v === undefined) continue;
    size += key.length + QUOTES_BYTES + SEPARATOR_BYTES + (typeof v === 'string' ? v.length + QUOTES_BYTES : typeof v === 'number' ? NUMBER_BYTES : estimateJSONSize(v)) + SEPARATOR_BYTES;
  }
  return size;
}
