/**
 * A lazily imported chunk (import() of code most pages never need): loaded at
 * the first call and kept once loaded. A failed load (the page offline, a
 * chunk gone after a deploy) is not kept: the next call tries again, so the
 * rejection of one attempt does not last the page's life.
 */
export function lazyChunk<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
