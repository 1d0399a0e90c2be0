/**
 * Compares strings in UTF-8 byte order.
 *
 * UTF-16 code-unit order (JS `<`) agrees with UTF-8 byte order except at the
 * first differing unit when one side is a surrogate (a character above
 * U+FFFF) and the other is in U+E000–U+FFFF: UTF-8 puts the astral character
 * last, UTF-16 puts it first. Shifting those two ranges past each other fixes
 * that, so the comparison stays a single pass over code units with no
 * encoding or allocation.
 */
export function compareUTF8(a: string, b: string): number {
  if (a === b) return 0;
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca !== cb) {
      if (ca < 0xd800 && cb < 0xd800) return ca - cb;
      return utf8Rank(ca) - utf8Rank(cb);
    }
  }
  return a.length - b.length;
}

function utf8Rank(unit: number): number {
  if (unit < 0xd800) return unit;
  if (unit < 0xe000) return unit + 0x2000; // surrogates: astral characters sort last
  return unit - 0x800;
}
