import type { IndexKey } from './transaction-types';

/**
 * Index map keys encode [secondary, primary] as "\0" + secondary + "\0" + primary.
 * Secondary keys never contain "\0", so byte order of the encoding is the
 * order of (secondary, primary): a shorter secondary ends with "\0", which
 * sorts before any character that would continue it.
 */
const SEP = '\u0000';

export function encodeIndexKey(secondary: string, primary: string): string {
  return SEP + secondary + SEP + primary;
}

export function decodeIndexKey(encoded: string): IndexKey {
  const end = encoded.indexOf(SEP, 1);
  return [encoded.slice(1, end), encoded.slice(end + 1)];
}

/** The encoded prefix of every entry whose secondary key starts with `prefix`. */
export function encodeIndexPrefix(prefix: string): string {
  return SEP + prefix;
}

/** The encoded prefix of every entry whose secondary key is exactly `secondary`. */
export function encodeIndexSecondary(secondary: string): string {
  return SEP + secondary + SEP;
}
