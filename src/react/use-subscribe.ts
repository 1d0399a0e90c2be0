import { useMemo, useSyncExternalStore, type DependencyList } from 'react';
import type { ReadTransaction } from '../db/transaction-types';

/** What useSubscribe needs from a client: its `subscribe` method. */
export interface Subscribable {
  subscribe<R>(
    body: (tx: ReadTransaction) => Promise<R>,
    options: { onData: (result: R) => void; onError?: (error: unknown) => void; isEqual?: (a: R, b: R) => boolean },
  ): () => void;
}

export interface UseSubscribeOptions<R> {
  /** Called when the body throws; the hook keeps its last value. */
  onError?: (error: unknown) => void;
  /** Result equality; the client compares deeply by default. */
  isEqual?: (a: R, b: R) => boolean;
}

/**
 * The result of `body`, kept up to date: it re-renders only when the result
 * changes (the client re-runs the body only when what it read changed, and
 * calls back only for a different result). Until the first result, `initial`.
 * The hook never creates or closes the client: the app owns it.
 */
export function useSubscribe<R>(
  r: Subscribable | null | undefined,
  body: (tx: ReadTransaction) => Promise<R>,
  initial: R,
  deps: DependencyList = [],
  options: UseSubscribeOptions<R> = {},
): R {
  const source = useMemo(
    () => createSource(r, body, initial, options),
    // body, initial and options are read when r or deps change, like a React effect.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [r, ...deps],
  );
  return useSyncExternalStore(source.subscribe, source.getSnapshot, source.getSnapshot);
}

interface Source<R> {
  subscribe(onStoreChange: () => void): () => void;
  getSnapshot(): R;
}

function createSource<R>(
  r: Subscribable | null | undefined,
  body: (tx: ReadTransaction) => Promise<R>,
  initial: R,
  options: UseSubscribeOptions<R>,
): Source<R> {
  let value = initial;
  return {
    subscribe(onStoreChange) {
      if (!r) return () => {};
      return r.subscribe(body, {
        onData(result) {
          value = result;
          onStoreChange();
        },
        onError: options.onError,
        isEqual: options.isEqual,
      });
    },
    getSnapshot: () => value,
  };
}
