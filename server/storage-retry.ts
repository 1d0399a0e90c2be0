/** First wait before running a batch again while a shared storage is unreachable, doubled per attempt up to the cap. */
const STORAGE_RETRY_INITIAL_MS = 50;
export const STORAGE_RETRY_MAX_MS = 2000;

/** The wait before attempt `attempt` + 1 (attempt 1 is the first failure). */
export function storageRetryDelayMs(attempt: number): number {
  return Math.min(STORAGE_RETRY_MAX_MS, STORAGE_RETRY_INITIAL_MS * 2 ** Math.max(0, attempt - 1));
}
