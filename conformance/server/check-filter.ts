/**
 * `--only` patterns: comma-separated; each matches a check name as a substring,
 * or as a whole-name glob when it contains `*`.
 */
export function matchesOnly(name: string, only: string | undefined): boolean {
  if (only === undefined || only.trim() === '') return true;
  return only
    .split(',')
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern !== '')
    .some((pattern) => (pattern.includes('*') ? globToRegExp(pattern).test(name) : name.includes(pattern)));
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}
