import type { ReadonlyJSONValue } from '../../protocol/json';

/** Deep equality of JSON values (object key order does not matter). */
export function jsonEqual(a: ReadonlyJSONValue, b: ReadonlyJSONValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const aIsArray = Array.isArray(a);
  if (aIsArray !== Array.isArray(b)) return false;
  if (aIsArray) {
    const x = a as readonly ReadonlyJSONValue[];
    const y = b as readonly ReadonlyJSONValue[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!jsonEqual(x[i]!, y[i]!)) return false;
    return true;
  }
  const x = a as { readonly [key: string]: ReadonlyJSONValue };
  const y = b as { readonly [key: string]: ReadonlyJSONValue };
  let count = 0;
  for (const key in x) {
    const xv = x[key];
    if (xv === undefined) continue;
    count++;
    const yv = y[key];
    if (yv === undefined || !Object.hasOwn(y, key) || !jsonEqual(xv, yv)) return false;
  }
  for (const key in y) if (y[key] !== undefined) count--;
  return count === 0;
}
