/**
 * An upper bound of the UTF-8 bytes of JSON.stringify(value), found in one
 * walk that builds no string: a check that must encode a value to measure it
 * exactly can skip the values that surely fit. Infinity for what is not JSON.
 */

/** A string's UTF-16 unit takes at most 6 bytes in JSON (\uXXXX). */
const STRING_UNIT_MAX_BYTES = 6;
const QUOTES_BYTES = 2;
/** The longest JSON number: a sign, "0.00000" and 17 digits, e.g. -0.0000012345678901234567 (from 1e-6 down numbers take an exponent, e.g. -1.7976931348623157e+308, 24). */
const NUMBER_MAX_BYTES = 25;
/** null, true, false. */
const LITERAL_MAX_BYTES = 5;

export function jsonBytesAtMost(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length * STRING_UNIT_MAX_BYTES + QUOTES_BYTES;
    case 'number':
      return NUMBER_MAX_BYTES;
    case 'boolean':
      return LITERAL_MAX_BYTES;
    case 'object': {
      if (value === null) return LITERAL_MAX_BYTES;
      // Brackets, and a separator after each element.
      let bytes = 2;
      if (Array.isArray(value)) {
        for (const element of value) bytes += jsonBytesAtMost(element === undefined ? null : element) + 1;
        return bytes;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return Infinity;
      // (for-in, not entries: no [key, value] pair, and no iterator to take one apart, per key while code is cold; every
      // mutate measures its arguments. An enumerable key inherited from a polluted prototype only raises the bound.)
      for (const key in value) {
        const v = (value as Record<string, unknown>)[key];
        if (v === undefined) continue;
        bytes += key.length * STRING_UNIT_MAX_BYTES + QUOTES_BYTES + 1 + jsonBytesAtMost(v) + 1;
      }
      return bytes;
    }
    default:
      return Infinity;
  }
}
