/** UTF-8 byte order for tests that run without the btree's comparator. */
export function utf8Compare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
