import { useCallback, useSyncExternalStore } from 'react';

export type ConnectionState = 'disconnected' | 'connecting' | 'connected';

/** A snapshot of the connection; a new object only when something in it changed. */
export interface ConnectionStatus {
  readonly state: ConnectionState;
  /** Why the client is disconnected (an error kind such as 'PingTimeout', 'Unauthorized', …). */
  readonly reason?: string;
  /** When disconnected and a retry is scheduled: its time, in the client clock's milliseconds (Date.now by default). */
  readonly nextRetryAt?: number;
  /** True after a successful connect, false after a failure. */
  readonly online: boolean;
}

export interface ConnectionStatusSource {
  readonly connectionStatus: ConnectionStatus;
  onConnectionStatusChange(listener: (status: ConnectionStatus) => void): () => void;
}

const UNKNOWN: ConnectionStatus = { state: 'disconnected', online: false };

/** The client's connection status, re-rendering on every change. */
export function useConnectionStatus(r: ConnectionStatusSource | null | undefined): ConnectionStatus {
  const subscribe = useCallback((onChange: () => void) => (r ? r.onConnectionStatusChange(onChange) : () => {}), [r]);
  const getSnapshot = useCallback(() => (r ? r.connectionStatus : UNKNOWN), [r]);
  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
}
