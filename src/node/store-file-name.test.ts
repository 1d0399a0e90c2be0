import { describe, expect, it } from 'vitest';
import { UnsupportedStoreNameError } from './sqlite-errors';
import { parseStoreFileName, storeFileName } from './store-file-name';

/** Uppercase letters only inside escapes, so no two names can differ only in case. */
const SAFE_FILE_NAME = /^([a-z0-9_~-]|%[0-9A-F]{2})+\.sqlite$/;

describe('store file names', () => {
  it('keep lowercase letters, digits, - and _, and escape everything else from UTF-8', () => {
    expect(storeFileName('roomsync:alice:groceries')).toBe('roomsync%3Aalice%3Agroceries.sqlite');
    expect(storeFileName('Ab.~')).toBe('%41b%2E%7E.sqlite');
    expect(storeFileName('é/')).toBe('%C3%A9%2F.sqlite');
    expect(storeFileName('..')).toBe('%2E%2E.sqlite');
  });

  it('round-trip, and names differing only in case get different files', () => {
    for (const name of ['roomsync:a%40b:c', 'Store', 'store', '✓ 😀', "!*'()", 'x.sqlite', '-']) {
      const fileName = storeFileName(name);
      expect(fileName).toMatch(SAFE_FILE_NAME);
      expect(parseStoreFileName(fileName)).toEqual({ name });
    }
    expect(storeFileName('Store').toLowerCase()).not.toBe(storeFileName('store').toLowerCase());
  });

  it('cut long names to a file name that fits, made unique by a hash, and mark them as such', () => {
    const long = 'roomsync:' + 'ü'.repeat(300);
    const other = long + 'x';
    const fileName = storeFileName(long);
    expect(fileName).toMatch(SAFE_FILE_NAME);
    expect(Buffer.byteLength(fileName) + '-wal'.length).toBeLessThanOrEqual(255);
    expect(storeFileName(other)).not.toBe(fileName);
    expect(parseStoreFileName(fileName)).toEqual({ hashed: true });
    expect(fileName).not.toMatch(/%[0-9A-F]?~/);
  });

  it('are not made up from other files', () => {
    for (const fileName of ['notes.txt', 'x.sqlite-wal', 'x.sqlite-shm', 'A.sqlite', '%zz.sqlite', '.sqlite', '%61.sqlite']) {
      expect(parseStoreFileName(fileName)).toBeUndefined();
    }
  });

  it('refuse names that are not well-formed Unicode', () => {
    expect(() => storeFileName('a\ud800b')).toThrow(UnsupportedStoreNameError);
  });
});
