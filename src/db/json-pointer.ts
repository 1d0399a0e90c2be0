import type { ReadonlyJSONValue } from '../../protocol/json';

export class InvalidJSONPointerError extends Error {
  readonly kind = 'InvalidJSONPointer';
  override readonly name = 'InvalidJSONPointerError';
  constructor(readonly pointer: string) {
    super(`Invalid JSON pointer: ${pointer}`);
  }
}

/** Splits an RFC 6901 pointer into unescaped tokens; "" is the whole value. */
export function parseJSONPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (pointer[0] !== '/') throw new InvalidJSONPointerError(pointer);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function evaluateJSONPointer(
  value: ReadonlyJSONValue,
  tokens: readonly string[],
): ReadonlyJSONValue | undefined {
  let cur: ReadonlyJSONValue | undefined = value;
  for (const token of tokens) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      cur = (cur as readonly ReadonlyJSONValue[])[Number(token)];
    } else {
      const obj = cur as Record<string, ReadonlyJSONValue>;
      cur = Object.prototype.hasOwnProperty.call(obj, token) ? obj[token] : undefined;
    }
  }
  return cur;
}
