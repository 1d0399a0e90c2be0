/**
 * Cuts a sorted run of entries into nodes by estimated size: a run that fits
 * in `max` stays whole; a longer one is cut each time a piece reaches `min`,
 * and a short last piece is merged into the one before it, or the two are
 * shared out evenly when together they would pass `max`. Every piece but a
 * lone one ends up between `min` and `max` (give or take one entry).
 *
 * Returns the end index of each piece.
 */
export function partition(sizes: readonly number[], total: number, min: number, max: number): number[] {
  if (total <= max) return [sizes.length];
  const ends: number[] = [];
  let acc = 0;
  for (let i = 0; i < sizes.length; i++) {
    acc += sizes[i]!;
    if (acc >= min) {
      ends.push(i + 1);
      acc = 0;
    }
  }
  if (acc > 0) {
    if (ends.length === 0) {
      ends.push(sizes.length);
    } else {
      // A short tail: merge it into the previous piece, evenly split if that is too big.
      const prevStart = ends.length >= 2 ? ends[ends.length - 2]! : 0;
      let prevSize = 0;
      for (let i = prevStart; i < ends[ends.length - 1]!; i++) prevSize += sizes[i]!;
      const combined = prevSize + acc;
      if (combined <= max) {
        ends[ends.length - 1] = sizes.length;
      } else {
        let half = 0;
        let cut = prevStart;
        while (cut < sizes.length - 1 && half + sizes[cut]! <= combined / 2) half += sizes[cut++]!;
        if (cut === prevStart) cut++;
        ends[ends.length - 1] = cut;
        ends.push(sizes.length);
      }
    }
  }
  return ends;
}
