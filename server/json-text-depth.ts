/**
 * True when JSON text nests deeper than `maxDepth` (a scalar is 0, `[]` is 1),
 * found by scanning the text once without parsing it.
 */
export function jsonTextDeeperThan(text: string, maxDepth: number): boolean {
  // Nesting deeper than maxDepth needs at least that many brackets on each side.
  if (text.length <= 2 * maxDepth) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
