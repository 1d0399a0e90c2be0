/**
 * Compares two keys in UTF-8 byte order (the order of the client's store):
 * code point order, which differs from JS `<` when a surrogate pair (astral
 * character) meets a code unit in U+E000–U+FFFF.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Index of the first element of `sorted` that is >= `key` (or > `key` when `after`). */
export function lowerBound(sorted: readonly string[], key: string, after = false): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareKeys(sorted[mid]!, key);
    if (c < 0 || (after && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
