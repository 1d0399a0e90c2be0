import type { ReadonlyJSONValue } from '../protocol/json';
import { NotJSONError } from './errors';

/** Deep-copies `value`, checking it is JSON, and freezes the copy so reads can hand it out as is. */
export function frozenJSONCopy(key: string, value: unknown): ReadonlyJSONValue {
  return copy(key, value, '', new Set());
}

function copy(key: string, value: unknown, path: string, seen: Set<object>): ReadonlyJSONValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new NotJSONError(key, path, String(value));
      return value;
    case 'object': {
      if (value === null) return null;
      if (seen.has(value)) throw new NotJSONError(key, path, 'a cycle');
      seen.add(value);
      let out: ReadonlyJSONValue;
      if (Array.isArray(value)) {
        out = Object.freeze(value.map((v, i) => copy(key, v, `${path}/${i}`, seen)));
      } else {
        const proto: unknown = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) throw new NotJSONError(key, path, 'a non-plain object');
        const obj: Record<string, ReadonlyJSONValue> = {};
        for (const [k, v] of Object.entries(value)) {
          if (v === undefined) continue;
          obj[k] = copy(key, v, `${path}/${k}`, seen);
        }
        out = Object.freeze(obj);
      }
      seen.delete(value);
      return out;
    }
    default:
      throw new NotJSONError(key, path, typeof value);
  }
}

/** Freezes a value known to be JSON (fresh from JSON.parse) in place. */
export function deepFreeze<V extends ReadonlyJSONValue>(value: V): V {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v as ReadonlyJSONValue);
  return value;
}
