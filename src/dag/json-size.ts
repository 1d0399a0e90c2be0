/**
 * A fast estimate of the encoded size of a JSON value in bytes, used to size
 * B+tree nodes and cache entries. It walks the value once and allocates
 * nothing; strings count their UTF-16 length (exact for ASCII).
 */
import type { ReadonlyJSONValue } from '../../protocol/json';

const NUMBER_BYTES = 8;
const NULL_OR_BOOL_BYTES = 4;
const QUOTES_BYTES = 2;
const BRACKETS_BYTES = 2;
const SEPARATOR_BYTES = 1;

export function estimateJSONSize(value: ReadonlyJSONValue): number {
  switch (typeof value) {
    case 'string':
      return value.length + QUOTES_BYTES;
    case 'number':
      return NUMBER_BYTES;
    case 'boolean':
      return NULL_OR_BOOL_BYTES;
    case 'object': {
      if (value === null) return NULL_OR_BOOL_BYTES;
      let size = BRACKETS_BYTES;
      if (Array.isArray(value)) {
        const arr = value as readonly ReadonlyJSONValue[];
        for (let i = 0; i < arr.length; i++) size += estimateJSONSize(arr[i]!) + SEPARATOR_BYTES;
        return size;
      }
      const obj = value as { readonly [key: string]: ReadonlyJSONValue };
      for (const key in obj) {
        const v = obj[key];
        if (v === undefined) continue;
        size += key.length + QUOTES_BYTES + SEPARATOR_BYTES + estimateJSONSize(v) + SEPARATOR_BYTES;
      }
      return size;
    }
    default:
      return 0;
  }
}
