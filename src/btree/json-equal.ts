import type { ReadonlyJSONValue } from '../../protocol/json';

/**
 * Deep equality of JSON values (object key order does not matter). Also the
 * store's deepEqualJSON (subscriptions compare what queries return with it):
 * a property that is there counts even when it is undefined.
 */
export function jsonEqual(a: ReadonlyJSONValue | undefined, b: ReadonlyJSONValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const aArr = Array.isArray(a);
  if (aArr !== Array.isArray(b)) return false;
  if (aArr) {
    const bb = b as readonly ReadonlyJSONValue[];
    const aa = a as readonly ReadonlyJSONValue[];
    if (aa.length !== bb.length) return false;
    for (let i = 0; i < aa.length; i++) if (!jsonEqual(aa[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, ReadonlyJSONValue>;
  const bo = b as Record<string, ReadonlyJSONValue>;
  let n = 0;
  for (const k in ao) {
    if (!Object.prototype.hasOwnProperty.call(bo, k) || !jsonEqual(ao[k], bo[k])) return false;
    n++;
  }
  for (const _ in bo) n--;
  return n === 0;
}
