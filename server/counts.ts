/** Takes one off `key`'s count, dropping the key at zero; a key not counted stays so. */
export function decrementCount(counts: Map<string, number>, key: string): void {
  const n = counts.get(key);
  if (n === undefined) return;
  if (n <= 1) counts.delete(key);
  else counts.set(key, n - 1);
}
