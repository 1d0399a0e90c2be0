export { useSubscribe, type Subscribable, type UseSubscribeOptions } from './use-subscribe';
export {
  useConnectionStatus,
  type ConnectionState,
  type ConnectionStatus,
  type ConnectionStatusSource,
} from './use-connection-status';
export { usePendingMutationCount, type PendingMutationCountSource } from './use-pending-mutation-count';
export { usePresence, type PresenceSource } from './use-presence';
export type { Presence, PresentClient, PresentUser } from '../presence/presence-view';
