import { useCallback, useSyncExternalStore } from 'react';

export interface PendingMutationCountSource {
  /** Local mutations not yet acknowledged by the server. */
  readonly pendingMutationCount: number;
  onPendingMutationCountChange(listener: (count: number) => void): () => void;
}

/** The number of local mutations not yet acknowledged by the server. */
export function usePendingMutationCount(r: PendingMutationCountSource | null | undefined): number {
  const subscribe = useCallback((onChange: () => void) => (r ? r.onPendingMutationCountChange(onChange) : () => {}), [r]);
  const getSnapshot = useCallback(() => (r ? r.pendingMutationCount : 0), [r]);
  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
}
