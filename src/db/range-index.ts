import type { KeyCompare } from './scan-options';

/**
 * A key range as a scan depends on it: keys from `lo` that start with
 * `prefix`, up to `upper` inclusive (or to the end of the prefix).
 */
export interface KeyRange<T> {
  readonly lo: string;
  readonly prefix: string;
  readonly upper: string | undefined;
  readonly item: T;
}

export function rangeHas<T>(r: KeyRange<T>, key: string, compare: KeyCompare): boolean {
  return (
    key.startsWith(r.prefix) && compare(key, r.lo) >= 0 && (r.upper === undefined || compare(key, r.upper) <= 0)
  );
}

/** The supremum of a range: a key (closed), or "just after every key with this prefix" (open). */
interface End {
  readonly key: string;
  readonly open: boolean;
}

function compareEnds(a: End, b: End, compare: KeyCompare): number {
  if (a.open && b.open) {
    if (a.key === b.key) return 0;
    if (a.key.startsWith(b.key)) return -1;
    if (b.key.startsWith(a.key)) return 1;
    return compare(a.key, b.key);
  }
  if (a.open) return b.key.startsWith(a.key) ? 1 : compare(a.key, b.key);
  if (b.open) return -compareEnds(b, a, compare);
  return compare(a.key, b.key);
}

function endBefore(end: End, key: string, compare: KeyCompare): boolean {
  if (end.open) return !key.startsWith(end.key) && compare(key, end.key) > 0;
  return compare(end.key, key) < 0;
}

/**
 * Finds the ranges containing a key without testing every range: ranges are
 * sorted by start, and a running maximum of their ends lets a lookup stop as
 * soon as no earlier range can reach the key.
 */
export class RangeIndex<T> {
  private readonly ranges: KeyRange<T>[];
  private readonly maxEnds: End[];

  constructor(
    ranges: Iterable<KeyRange<T>>,
    private readonly compare: KeyCompare,
  ) {
    this.ranges = [...ranges].sort((a, b) => compare(a.lo, b.lo));
    this.maxEnds = [];
    let max: End | undefined;
    for (const r of this.ranges) {
      const end: End = r.upper === undefined ? { key: r.prefix, open: true } : { key: r.upper, open: false };
      if (max === undefined || compareEnds(end, max, compare) > 0) max = end;
      this.maxEnds.push(max);
    }
  }

  get size(): number {
    return this.ranges.length;
  }

  /** Calls `visit` for every range containing `key`. */
  forEachContaining(key: string, visit: (item: T) => void): void {
    const { ranges, maxEnds, compare } = this;
    let lo = 0;
    let hi = ranges.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(ranges[mid]!.lo, key) <= 0) lo = mid + 1;
      else hi = mid;
    }
    for (let j = lo - 1; j >= 0; j--) {
      if (endBefore(maxEnds[j]!, key, compare)) break;
      const r = ranges[j]!;
      if (rangeHas(r, key, compare)) visit(r.item);
    }
  }
}
