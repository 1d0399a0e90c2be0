import { MAX_JSON_VALUE_DEPTH } from '../../protocol/constants';

/** What is wrong with a JSON value, and where (a JSON pointer). */
export interface JSONLimitViolation {
  readonly path: string;
  readonly problem: string;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `text` has no lone surrogate, so it survives UTF-8 (and every store) unchanged. */
export function isWellFormedText(text: string): boolean {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  return native === undefined ? !LONE_SURROGATE.test(text) : native.call(text);
}

interface Frame {
  readonly value: object;
  readonly keys: readonly string[] | undefined;
  readonly key: string;
  index: number;
}

/**
 * Walks a parsed JSON value without recursion and returns the first place that
 * nests deeper than `maxDepth` or holds a string or key that is not
 * well-formed Unicode (a lone surrogate); undefined when it is fine.
 * `envelopeDepth` levels of a frame around its values do not count.
 */
export function findJSONLimitViolation(root: unknown, maxDepth: number = MAX_JSON_VALUE_DEPTH, envelopeDepth = 0): JSONLimitViolation | undefined {
  if (typeof root === 'string') return isWellFormedText(root) ? undefined : { path: '', problem: 'a string that is not well-formed Unicode (a lone surrogate)' };
  if (typeof root !== 'object' || root === null) return undefined;
  const stack: Frame[] = [];
  const path = (extra?: string): string => {
    const parts = stack.slice(1).map((f) => f.key);
    if (extra !== undefined) parts.push(extra);
    return parts.map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
  };
  const enter = (value: object, key: string): JSONLimitViolation | undefined => {
    if (stack.length >= maxDepth + envelopeDepth) return { path: path(key), problem: `a value nested deeper than ${maxDepth} levels` };
    stack.push({ value, keys: Array.isArray(value) ? undefined : Object.keys(value), key, index: 0 });
    return undefined;
  };
  const first = enter(root, '');
  if (first !== undefined) return first;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const size = top.keys === undefined ? (top.value as unknown[]).length : top.keys.length;
    if (top.index >= size) {
      stack.pop();
      continue;
    }
    const i = top.index++;
    let key: string;
    let child: unknown;
    if (top.keys === undefined) {
      key = String(i);
      child = (top.value as unknown[])[i];
    } else {
      key = top.keys[i]!;
      if (!isWellFormedText(key)) return { path: path(), problem: 'a key that is not well-formed Unicode (a lone surrogate)' };
      child = (top.value as Record<string, unknown>)[key];
    }
    if (typeof child === 'string') {
      if (!isWellFormedText(child)) return { path: path(key), problem: 'a string that is not well-formed Unicode (a lone surrogate)' };
    } else if (typeof child === 'object' && child !== null) {
      const violation = enter(child, key);
      if (violation !== undefined) return violation;
    }
  }
  return undefined;
}
