/**
 * Store names ↔ database file names. Any store name becomes a file name that
 * is safe on every common file system (case-insensitive ones included):
 * lowercase ASCII letters, digits, `-` and `_` stay as they are, every other
 * character is percent-encoded from its UTF-8 bytes (`A` → `%41`, `:` → `%3A`).
 * A name whose encoding would be too long for a file name is cut, and a hash
 * of the whole name keeps it unique (`~` marks such a name: the encoding never
 * produces one); the database itself then tells the name (see `storeNameOf`).
 */
import { createHash } from 'node:crypto';
import { UnsupportedStoreNameError } from './sqlite-errors';

export const STORE_FILE_EXTENSION = '.sqlite';

/** Room left for `-wal`/`-shm` and the extension under the usual 255-byte limit. */
const MAX_ENCODED_NAME_BYTES = 200;
const HASHED_PREFIX_BYTES = 150;
const HASH_HEX_CHARS = 40;
const HASH_MARK = '~';
const KEPT = /^[a-z0-9_-]$/;

/** The file name (extension included) of the store `name`. */
export function storeFileName(name: string): string {
  const encoded = encodeName(name);
  if (encoded.length <= MAX_ENCODED_NAME_BYTES) return encoded + STORE_FILE_EXTENSION;
  // Cut at a character boundary: never inside a %XX escape.
  let cut = HASHED_PREFIX_BYTES;
  const lastEscape = encoded.lastIndexOf('%', cut - 1);
  if (lastEscape !== -1 && lastEscape > cut - 3) cut = lastEscape;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, HASH_HEX_CHARS);
  return `${encoded.slice(0, cut)}${HASH_MARK}${hash}${STORE_FILE_EXTENSION}`;
}

/**
 * What a file name says about its store: the name itself, `hashed` when the
 * file name only holds a cut of it (the database knows the rest), undefined
 * when it is not a store file of ours.
 */
export function parseStoreFileName(fileName: string): { name: string } | { hashed: true } | undefined {
  if (!fileName.endsWith(STORE_FILE_EXTENSION)) return undefined;
  const stem = fileName.slice(0, -STORE_FILE_EXTENSION.length);
  if (stem.includes(HASH_MARK)) return { hashed: true };
  try {
    const name = decodeURIComponent(stem);
    return name !== '' && encodeName(name) === stem ? { name } : undefined;
  } catch {
    return undefined;
  }
}

function encodeName(name: string): string {
  let out = '';
  for (const char of name) {
    if (KEPT.test(char)) {
      out += char;
      continue;
    }
    let bytes: string;
    try {
      bytes = encodeURIComponent(char);
    } catch {
      throw new UnsupportedStoreNameError(name);
    }
    // encodeURIComponent keeps some characters (A-Z . ! ~ * ' ( )): escape those too.
    out += bytes.startsWith('%') ? bytes : `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
