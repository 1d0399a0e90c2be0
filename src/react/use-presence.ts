import { useMemo, useSyncExternalStore } from 'react';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { EMPTY_PRESENCE, type Presence } from '../presence/presence-view';

/** What usePresence needs from a client: its `subscribeToPresence` method. */
export interface PresenceSource {
  subscribeToPresence<S>(callback: (presence: Presence<S>) => void): () => void;
}

/**
 * Who is in the room — `clients` (every tab, with its user id and state) and
 * `users` (one entry per person, however many tabs) — kept up to date;
 * empty until the client has read it. The hook never creates or closes the
 * client: the app owns it.
 */
export function usePresence<S = ReadonlyJSONValue>(r: PresenceSource | null | undefined): Presence<S> {
  const source = useMemo(() => {
    let value: Presence<S> = EMPTY_PRESENCE;
    return {
      subscribe(onChange: () => void): () => void {
        if (!r) return () => {};
        return r.subscribeToPresence<S>((presence) => {
          value = presence;
          onChange();
        });
      },
      getSnapshot: () => value,
    };
  }, [r]);
  return useSyncExternalStore(source.subscribe, source.getSnapshot, source.getSnapshot);
}
