import { isDeepStrictEqual } from 'node:util';
import type { KeyValues } from './client-view';

const MAX_LINES = 8;

/** A short human description of how `actual` differs from `expected`; '' when equal. */
export function describeStateDiff(expected: KeyValues, actual: KeyValues): string {
  const lines: string[] = [];
  for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    const inExpected = Object.hasOwn(expected, key);
    const inActual = Object.hasOwn(actual, key);
    if (inExpected && !inActual) lines.push(`missing ${JSON.stringify(key)} (expected ${JSON.stringify(expected[key])})`);
    else if (!inExpected && inActual) lines.push(`unexpected ${JSON.stringify(key)} = ${JSON.stringify(actual[key])}`);
    else if (!isDeepStrictEqual(expected[key], actual[key])) {
      lines.push(`${JSON.stringify(key)} is ${JSON.stringify(actual[key])}, expected ${JSON.stringify(expected[key])}`);
    }
  }
  if (lines.length > MAX_LINES) return [...lines.slice(0, MAX_LINES), `… and ${lines.length - MAX_LINES} more`].join('; ');
  return lines.join('; ');
}

export function statesEqual(a: KeyValues, b: KeyValues): boolean {
  return isDeepStrictEqual(a, b);
}
