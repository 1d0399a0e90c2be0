import type { Scenario } from '../scenario';
import appClose from './app-close';
import appDisconnectReconnect from './app-disconnect-reconnect';
import authConsecutiveBackOff from './auth-consecutive-back-off';
import authRefresh from './auth-refresh';
import authRetryCap from './auth-retry-cap';
import backoffGoldenTrace from './backoff-golden-trace';
import backoffReset from './backoff-reset';
import connectTimeout from './connect-timeout';
import connectTimeoutPendingUpgrade from './connect-timeout-pending-upgrade';
import errorsBackoffKinds from './errors-backoff-kinds';
import errorsClientNotFound from './errors-client-not-found';
import errorsUpdateNeeded from './errors-update-needed';
import handshakeFirstConnect from './handshake-first-connect';
import handshakeNoToken from './handshake-no-token';
import handshakeReconnectParams from './handshake-reconnect-params';
import invalidDownstream from './invalid-downstream';
import pingQuietSocket from './ping-quiet-socket';
import pingTrafficDelays from './ping-traffic-delays';
import pokeAppliesPatch from './poke-applies-patch';
import pokeOutOfOrder from './poke-out-of-order';
import pokeRebase from './poke-rebase';
import pokeStaleLastMutationID from './poke-stale-last-mutation-id';
import pushAcknowledgedDropped from './push-acknowledged-dropped';
import pushBeforeConnected from './push-before-connected';
import pushOrderAndResume from './push-order-and-resume';
import pushResendUnacknowledged from './push-resend-unacknowledged';
import pushSplitToLimits from './push-split-to-limits';
import reconnectAfterDrop from './reconnect-after-drop';
import recoveryPull from './recovery-pull';
import visibilityBriefHide from './visibility-brief-hide';
import visibilityHiddenDisconnects from './visibility-hidden-disconnects';
import visibilityHiddenDuringBackoff from './visibility-hidden-during-backoff';
import visibilityHiddenWhileConnecting from './visibility-hidden-while-connecting';
import visibilityStartHidden from './visibility-start-hidden';

/** Every client scenario, in report order. */
export const allScenarios: readonly Scenario[] = [
  handshakeFirstConnect,
  handshakeNoToken,
  handshakeReconnectParams,
  pushOrderAndResume,
  pushBeforeConnected,
  pushResendUnacknowledged,
  pushAcknowledgedDropped,
  ...pushSplitToLimits,
  pokeAppliesPatch,
  pokeRebase,
  pokeStaleLastMutationID,
  pokeOutOfOrder,
  backoffGoldenTrace,
  backoffReset,
  ...reconnectAfterDrop,
  connectTimeout,
  connectTimeoutPendingUpgrade,
  pingQuietSocket,
  pingTrafficDelays,
  visibilityHiddenDisconnects,
  visibilityHiddenDuringBackoff,
  visibilityHiddenWhileConnecting,
  visibilityBriefHide,
  visibilityStartHidden,
  ...authRefresh,
  ...authRetryCap,
  authConsecutiveBackOff,
  errorsUpdateNeeded,
  errorsClientNotFound,
  ...errorsBackoffKinds,
  ...invalidDownstream,
  appDisconnectReconnect,
  appClose,
  ...recoveryPull,
];
