import type { ReadonlyJSONValue } from '../../protocol/json';
import { MAX_JSON_VALUE_DEPTH } from '../../protocol/constants';
import { isWellFormedText, NOT_WELL_FORMED_KEY, NOT_WELL_FORMED_STRING } from '../protocol/json-limits';
import { InvalidJSONValueError, InvalidKeyError } from './errors';


/** Refuses a key that no store holds (put refuses it), so a read of it fails as it does on the server. */
export function checkKeyText(key: string, what = 'Key'): void {
  if (!isWellFormedText(key)) throw new InvalidKeyError(key, what);
}

/**
 * Copies `value` while checking that it is JSON, and deep-freezes the copy, in
 * one pass. The app keeps its object; the store keeps a frozen copy it can
 * hand out on reads without copying again. Refuses what the protocol refuses:
 * keys and strings with lone surrogates, and nesting deeper than
 * MAX_JSON_VALUE_DEPTH (so the recursion here stays shallow).
 */
export function cloneFrozenJSON(key: string, value: unknown): ReadonlyJSONValue {
  if (!isWellFormedText(key)) throw new InvalidJSONValueError(key, '', NOT_WELL_FORMED_KEY);
  return cloneValue(key, value, '', []);
}

function cloneValue(key: string, value: unknown, path: string, ancestors: object[]): ReadonlyJSONValue {
  switch (typeof value) {
    case 'string':
      if (!isWellFormedText(value)) throw new InvalidJSONValueError(key, path, NOT_WELL_FORMED_STRING);
      return value;
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new InvalidJSONValueError(key, path, String(value));
      return value;
    case 'object': {
      if (value === null) return null;
      if (ancestors.includes(value)) throw new InvalidJSONValueError(key, path, 'a cycle');
      if (ancestors.length >= MAX_JSON_VALUE_DEPTH) {
        throw new InvalidJSONValueError(key, path, `a value nested deeper than ${MAX_JSON_VALUE_DEPTH} levels`);
      }
      ancestors.push(value);
      let out: ReadonlyJSONValue;
      if (Array.isArray(value)) {
        const arr: ReadonlyJSONValue[] = new Array(value.length);
        for (let i = 0; i < value.length; i++) arr[i] = cloneValue(key, value[i], `${path}/${i}`, ancestors);
        out = Object.freeze(arr);
      } else {
        const proto = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) {
          const ctor = (value as { constructor?: { name?: string } }).constructor?.name ?? 'object';
          throw new InvalidJSONValueError(key, path, `an instance of ${ctor}`);
        }
        const obj: Record<string, ReadonlyJSONValue> = {};
        for (const k in value) {
          if (!Object.prototype.hasOwnProperty.call(value, k)) continue;
          if (!isWellFormedText(k)) throw new InvalidJSONValueError(key, path, NOT_WELL_FORMED_KEY);
          const v = cloneValue(key, (value as Record<string, unknown>)[k], `${path}/${k}`, ancestors);
          // A "__proto__" key must stay an own property, not become the prototype.
          if (k === '__proto__') Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
          else obj[k] = v;
        }
        out = Object.freeze(obj);
      }
      ancestors.pop();
      return out;
    }
    default:
      throw new InvalidJSONValueError(key, path, typeof value);
  }
}

/**
 * Freezes a value that is known to be JSON (e.g. fresh from JSON.parse or read
 * back from storage) in place. Stops at already-frozen objects.
 */
export function deepFreezeJSON<V extends ReadonlyJSONValue>(value: V): V {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const v of value) deepFreezeJSON(v as ReadonlyJSONValue);
  } else {
    for (const k in value) deepFreezeJSON((value as Record<string, ReadonlyJSONValue>)[k]!);
  }
  return value;
}

/** Deep equality of JSON values (object key order does not matter); one function with the B+tree's diff. */
export { jsonEqual as deepEqualJSON } from '../btree/json-equal';
