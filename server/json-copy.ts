import { MAX_JSON_VALUE_DEPTH } from '../protocol/constants';
import type { ReadonlyJSONValue } from '../protocol/json';
import { isWellFormedText, NOT_WELL_FORMED_KEY, NOT_WELL_FORMED_STRING } from '../src/protocol/json-limits';
import { NotJSONError } from './errors';
import { setOwn } from './engine/own-record';

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
 * an own data property. (No closures per call: this runs for every write.)
 */
export function frozenJSONCopy(key: string, value: unknown): ReadonlyJSONValue {
  const stack: CopyFrame[] = [];
  const root = visit(key, stack, value, '');
  if (root !== CONTAINER) return root as ReadonlyJSONValue;
  for (;;) {
    const top = stack[stack.length - 1]!;
    const size = top.keys === undefined ? (top.source as unknown[]).length : top.keys.length;
    if (top.index < size) {
      const i = top.index++;
      const name = top.keys === undefined ? String(i) : top.keys[i]!;
      if (top.keys !== undefined && !isWellFormedText(name)) fail(key, stack, NOT_WELL_FORMED_KEY);
      const child = (top.source as Record<string, unknown>)[name];
      if (child === undefined && top.keys !== undefined) continue;
      const scalar = visit(key, stack, child, name);
      if (scalar !== CONTAINER) assign(top.out, name, scalar);
      continue;
    }
    stack.pop();
    const done = Object.freeze(top.out);
    const parent = stack[stack.length - 1];
    if (parent === undefined) return done as ReadonlyJSONValue;
    assign(parent.out, top.name, done);
  }
}

/** What visit answers for a container: a frame for it was pushed. */
const CONTAINER: unique symbol = Symbol('container');

/** A scalar as is, or CONTAINER after pushing a frame for an array or object; throws NotJSONError for anything else. */
function visit(key: string, stack: CopyFrame[], v: unknown, name: string): unknown {
  switch (typeof v) {
    case 'string':
      if (!isWellFormedText(v)) fail(key, stack, NOT_WELL_FORMED_STRING, name);
      return v;
    case 'boolean':
      return v;
    case 'number':
      if (!Number.isFinite(v)) fail(key, stack, String(v), name);
      return v;
    case 'object': {
      if (v === null) return null;
      if (stack.some((f) => f.source === v)) fail(key, stack, 'a cycle', name);
      if (stack.length >= MAX_JSON_VALUE_DEPTH) fail(key, stack, `a value nested deeper than ${MAX_JSON_VALUE_DEPTH} levels`, name);
      if (Array.isArray(v)) {
        stack.push({ source: v, out: new Array<unknown>(v.length), keys: undefined, name, index: 0 });
        return CONTAINER;
      }
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) fail(key, stack, 'a non-plain object', name);
      stack.push({ source: v, out: {}, keys: Object.keys(v), name, index: 0 });
      return CONTAINER;
    }
    default:
      return fail(key, stack, typeof v, name);
  }
}

function fail(key: string, stack: readonly CopyFrame[], what: string, extra?: string): never {
  const names = stack.slice(1).map((f) => f.name);
  if (extra !== undefined) names.push(extra);
  throw new NotJSONError(key, names.map((p) => `/${p}`).join(''), what);
}

function assign(out: unknown[] | Record<string, unknown>, name: string, value: unknown): void {
  if (Array.isArray(out)) out[Number(name)] = value;
  else setOwn(out, name, value);
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
