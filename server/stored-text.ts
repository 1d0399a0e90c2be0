import { isWellFormedText } from '../src/protocol/json-limits';

/**
 * Longest room, client or client group id accepted, in UTF-8 bytes. With
 * MAX_KEY_BYTES it keeps a (room, key) pair inside what a PostgreSQL btree
 * index entry may hold (about 2,700 bytes), so no batch can fail there.
 */
export const MAX_ID_BYTES = 512;
/** Longest key a mutator may write, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 2048;

/**
 * Why `text` cannot be stored exactly as a key or an id (every storage must
 * give back what it was given, PostgreSQL's text refuses U+0000, and UTF-8
 * cannot hold a lone surrogate), or undefined when it can.
 */
export function storedTextProblem(text: string, maxBytes: number): string | undefined {
  if (text.includes('\u0000')) return 'it contains U+0000';
  if (!isWellFormedText(text)) return 'it is not well-formed Unicode (it has a lone surrogate)';
  const bytes = Buffer.byteLength(text);
  if (bytes > maxBytes) return `it is ${bytes} bytes long in UTF-8, over the limit of ${maxBytes}`;
  return undefined;
}
