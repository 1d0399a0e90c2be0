import { MAX_JSON_VALUE_DEPTH } from '../protocol/constants';
import type { ReadonlyJSONValue } from '../protocol/json';
import { isWellFormedText } from '../src/protocol/json-limits';
import { NotJSONError } from './errors';

interface CopyFrame {
  readonly source: object;
  readonly out: unknown[] | Record<string, unknown>;
  readonly keys: readonly string[] | undefined;
  readonly name: string;
  index: number;
}

/**
 * Deep-copies `value`, checking that it is JSON within the protocol's limits
 * (depth, well-formed Unicode), and freezes the copy so reads can hand it out
 * as is. Iterative: no value can exhaust the stack. A `"__proto__"` key stays
 * an own data property.
 */
export function frozenJSONCopy(key: string, value: unknown): ReadonlyJSONValue {
  const stack: CopyFrame[] = [];
  const path = (extra?: string) => [...stack.slice(1).map((f) => f.name), ...(extra === undefined ? [] : [extra])].map((p) => `/${p}`).join('');
  const fail = (what: string, extra?: string): never => {
    throw new NotJSONError(key, path(extra), what);
  };
  /** A scalar as is, or a new frame for a container (undefined returned). */
  const visit = (v: unknown, name: string): { scalar: unknown } | undefined => {
    switch (typeof v) {
      case 'string':
        if (!isWellFormedText(v)) fail('a string that is not well-formed Unicode (a lone surrogate)', name);
        return { scalar: v };
      case 'boolean':
        return { scalar: v };
      case 'number':
        if (!Number.isFinite(v)) fail(String(v), name);
        return { scalar: v };
      case 'object': {
        if (v === null) return { scalar: null };
        if (stack.some((f) => f.source === v)) fail('a cycle', name);
        if (stack.length >= MAX_JSON_VALUE_DEPTH) fail(`a value nested deeper than ${MAX_JSON_VALUE_DEPTH} levels`, name);
        if (Array.isArray(v)) {
          stack.push({ source: v, out: new Array<unknown>(v.length), keys: undefined, name, index: 0 });
          return undefined;
        }
        const proto: unknown = Object.getPrototypeOf(v);
        if (proto !== Object.prototype && proto !== null) fail('a non-plain object', name);
        stack.push({ source: v, out: {}, keys: Object.keys(v), name, index: 0 });
        return undefined;
      }
      default:
        return fail(typeof v, name);
    }
  };
  const root = visit(value, '');
  if (root !== undefined) return root.scalar as ReadonlyJSONValue;
  for (;;) {
    const top = stack[stack.length - 1]!;
    const size = top.keys === undefined ? (top.source as unknown[]).length : top.keys.length;
    if (top.index < size) {
      const i = top.index++;
      const name = top.keys === undefined ? String(i) : top.keys[i]!;
      if (top.keys !== undefined && !isWellFormedText(name)) fail('a key that is not well-formed Unicode (a lone surrogate)');
      const child = (top.source as Record<string, unknown>)[name];
      if (child === undefined && top.keys !== undefined) continue;
      const scalar = visit(child, name);
      if (scalar !== undefined) assign(top.out, name, scalar.scalar);
      continue;
    }
    stack.pop();
    const done = Object.freeze(top.out);
    const parent = stack[stack.length - 1];
    if (parent === undefined) return done as ReadonlyJSONValue;
    assign(parent.out, top.name, done);
  }
}

function assign(out: unknown[] | Record<string, unknown>, name: string, value: unknown): void {
  if (Array.isArray(out)) out[Number(name)] = value;
  else if (name === '__proto__') Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  else out[name] = value;
}

/** Freezes a value known to be JSON (fresh from JSON.parse) in place, without recursion. */
export function deepFreeze<V extends ReadonlyJSONValue>(value: V): V {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v !== 'object' || v === null || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) pending.push(child);
  }
  return value;
}
