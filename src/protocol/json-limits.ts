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

/** Why a string, or a key, is refused (the same words on the client and the server). */
export const NOT_WELL_FORMED_STRING = 'a string that is not well-formed Unicode (a lone surrogate)';
export const NOT_WELL_FORMED_KEY = 'a key that is not well-formed Unicode (a lone surrogate)';

/** The deepest limit the walk takes: it recurses once per level up to the limit. */
export const MAX_WALKABLE_DEPTH = 1000;

/** A violation found below a value: its problem, and the keys to it from there, innermost first. */
interface Found {
  readonly problem: string;
  readonly keys: string[];
}

/**
 * Walks a parsed JSON value and returns the first place that nests deeper
 * than `maxDepth` or holds a string or key that is not well-formed Unicode (a
 * lone surrogate); undefined when it is fine. `envelopeDepth` levels of a
 * frame around its values do not count. The walk recurses, but never deeper
 * than the limit: a value nested deeper is refused there, however deep it goes.
 * `maxDepth` and `envelopeDepth` must be numbers adding up to at most
 * MAX_WALKABLE_DEPTH, or it throws a RangeError.
 */
export function findJSONLimitViolation(root: unknown, maxDepth: number = MAX_JSON_VALUE_DEPTH, envelopeDepth = 0): JSONLimitViolation | undefined {
  const limit = maxDepth + envelopeDepth;
  if (typeof maxDepth != 'number' || typeof envelopeDepth != 'number' || !(limit <= MAX_WALKABLE_DEPTH)) throw new RangeError(`not a JSON depth limit: ${maxDepth} + ${envelopeDepth} (numbers, ${MAX_WALKABLE_DEPTH} at most in all)`);
  const found = visitJSON(root, 0, limit, maxDepth);
  if (found === undefined) return undefined;
  const path = found.keys.reverse().map((key) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  return { path: path.join(''), problem: found.problem };
}

function visitJSON(value: unknown, depth: number, limit: number, maxDepth: number): Found | undefined {
  if (typeof value === 'string') return isWellFormedText(value) ? undefined : { problem: NOT_WELL_FORMED_STRING, keys: [] };
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= limit) return { problem: `a value nested deeper than ${maxDepth} levels`, keys: [] };
  let found: Found | undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if ((found = visitJSON(value[i], depth + 1, limit, maxDepth)) !== undefined) return (found.keys.push(String(i)), found);
  } else {
    for (const key of Object.keys(value)) {
      if (!isWellFormedText(key)) return { problem: NOT_WELL_FORMED_KEY, keys: [] };
      if ((found = visitJSON((value as Record<string, unknown>)[key], depth + 1, limit, maxDepth)) !== undefined) return (found.keys.push(key), found);
    }
  }
  return undefined;
}
