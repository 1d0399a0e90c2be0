/** Parses a request target; undefined when it is not a valid URL path (never throws). */
export function parseRequestURL(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://request.invalid');
  } catch {
    return undefined;
  }
}
