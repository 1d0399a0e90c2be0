import {
  CONNECT_TIMEOUT_MS,
  HIDDEN_DISCONNECT_DELAY_MS,
  MAX_REAUTH_RETRIES,
  PING_INTERVAL_MS,
  PONG_DEADLINE_MS,
} from '../../protocol/constants';
import type { Downstream } from '../protocol/messages';
import type { InvalidMessageError } from '../protocol/protocol-error';
import { backoffDelayMs, isDrop, reconnectJitterMs } from './backoff';
import type { ConnectionEffect } from './effects';
import type { RandomSource } from './environment';
import {
  AuthError,
  ClientClosedError,
  ClientDisconnectedError,
  CloseError,
  ConnectionError,
  HiddenError,
  ReauthLimitError,
  TimeoutError,
  isAuthErrorKind,
  serverError,
} from './errors';
import type { ConnectionEvent, TimerName } from './events';
import type { ConnectionState, HaltReason } from './state';

export interface Transition {
  readonly state: ConnectionState;
  readonly effects: readonly ConnectionEffect[];
}

type Failure = ConnectionError | InvalidMessageError;
type Effects = ConnectionEffect[];

/** When an event happens, and the random source to draw a reconnect jitter from. */
interface Moment {
  readonly nowMs: number;
  readonly random: RandomSource;
}

const SOCKET_TIMERS: readonly TimerName[] = ['connectTimeout', 'ping', 'pongDeadline', 'hiddenDelay'];

/**
 * The connection state machine: pure. `nowMs` is the monotonic time of the
 * event (used only to measure the time to connect); `random` is called only
 * for the jitter of a reconnect after a drop.
 */
export function transition(state: ConnectionState, event: ConnectionEvent, nowMs: number, random: RandomSource): Transition {
  const effects: Effects = [];
  const next = step(state, event, { nowMs, random }, effects);
  return { state: next, effects };
}

function step(s: ConnectionState, event: ConnectionEvent, at: Moment, fx: Effects): ConnectionState {
  if (s.phase === 'closed') return s;
  switch (event.type) {
    case 'start':
      return s.waiting === 'start' ? tryConnect({ ...s, waiting: 'none' }, at, fx) : s;
    case 'reconnect':
      return onReconnect(s, at, fx);
    case 'close':
      return close(s, fx);
    case 'userDisconnect': {
      if (s.halt !== null && s.halt !== 'ReauthLimit') return s;
      const ended = endSocket(s, new ClientDisconnectedError(), fx);
      fx.push({ type: 'log', level: 'info', message: 'Disconnected by the app' });
      return halt(ended, 'ClientDisconnected', undefined, fx);
    }
    case 'disconnect':
      return isActive(s) ? fail(s, event.error, at, fx) : s;
    case 'clientStateNotFound': {
      const error = new ConnectionError('ClientStateNotFound', 'The client state was not found');
      if (isActive(s)) return fail(s, error, at, fx);
      fx.push({ type: 'clientStateNotFound' });
      return halt(s, 'ClientStateNotFound', error, fx);
    }
    case 'visibility':
      return onVisibility(s, event.visible, at, fx);
    case 'network':
      return onNetwork(s, event.online, at, fx);
    case 'tokenObtained':
      if (!isCurrentTokenRequest(s, event.requestID)) return s;
      return openSocket({ ...s, token: event.token, haveToken: true, needsFreshToken: false, awaitingToken: false }, fx);
    case 'tokenFailed': {
      if (!isCurrentTokenRequest(s, event.requestID)) return s;
      const error = new AuthError('Unauthorized', `The auth function failed: ${String(event.error)}`);
      return fail({ ...s, awaitingToken: false }, error, at, fx);
    }
    case 'socketCreated':
      return isCurrentSocket(s, event.socketID) ? { ...s, wsid: event.wsid } : s;
    case 'socketOpen':
      if (isCurrentSocket(s, event.socketID)) fx.push({ type: 'log', level: 'debug', message: 'Socket open' });
      return s;
    case 'socketMessage':
      return isCurrentSocket(s, event.socketID) ? onMessage(s, event.message, at, fx) : s;
    case 'socketInvalidMessage':
      return isCurrentSocket(s, event.socketID) ? fail(s, event.error, at, fx) : s;
    case 'socketError':
      return isCurrentSocket(s, event.socketID) ? fail(s, new CloseError('AbruptClose'), at, fx) : s;
    case 'socketClose': {
      if (!isCurrentSocket(s, event.socketID)) return s;
      const kind = event.wasClean ? 'CleanClose' : 'AbruptClose';
      return fail(s, new CloseError(kind, event.code, event.reason), at, fx);
    }
    case 'timer':
      return onTimer(s, event.name, at, fx);
  }
}

function onMessage(s: ConnectionState, message: Downstream, at: Moment, fx: Effects): ConnectionState {
  switch (message[0]) {
    case 'connected': {
      if (s.phase === 'connected') {
        fx.push({ type: 'log', level: 'info', message: 'Ignoring a second connected message' });
        return trafficSeen(s, fx);
      }
      if (message[1].wsid !== s.wsid) {
        fx.push({ type: 'log', level: 'warn', message: `The server answered wsid ${message[1].wsid}, not ours (${s.wsid})` });
      }
      fx.push({ type: 'cancelTimer', name: 'connectTimeout' });
      const connected: ConnectionState = { ...s, phase: 'connected', errorCount: 0, authFailures: 0, lastDisconnectReason: null };
      fx.push({ type: 'connected', socketID: s.socketID, timeToConnectMs: at.nowMs - s.attemptStartedAt });
      fx.push({ type: 'log', level: 'info', message: 'Connected' });
      fx.push({ type: 'startTimer', name: 'ping', delayMs: PING_INTERVAL_MS });
      return setOnline(connected, true, fx);
    }
    case 'error':
      return fail(s, serverError(message[1], message[2]), at, fx);
    case 'pong':
      return trafficSeen(s, fx);
    case 'poke':
      fx.push({ type: 'poke', socketID: s.socketID, body: message[1] });
      return trafficSeen(s, fx);
    case 'pull':
      fx.push({ type: 'pullResponse', socketID: s.socketID, body: message[1] });
      return trafficSeen(s, fx);
  }
}

/** Any frame from the server proves the socket alive: the quiet period starts again. */
function trafficSeen(s: ConnectionState, fx: Effects): ConnectionState {
  if (s.phase !== 'connected') return s;
  fx.push({ type: 'cancelTimer', name: 'pongDeadline' });
  fx.push({ type: 'startTimer', name: 'ping', delayMs: PING_INTERVAL_MS });
  return s;
}

function onTimer(s: ConnectionState, name: TimerName, at: Moment, fx: Effects): ConnectionState {
  switch (name) {
    case 'connectTimeout':
      return s.phase === 'connecting' ? fail(s, new TimeoutError('ConnectTimeout'), at, fx) : s;
    case 'ping':
      if (s.phase !== 'connected') return s;
      fx.push({ type: 'sendPing', socketID: s.socketID });
      fx.push({ type: 'startTimer', name: 'pongDeadline', delayMs: PONG_DEADLINE_MS });
      return s;
    case 'pongDeadline':
      return s.phase === 'connected' ? fail(s, new TimeoutError('PingTimeout'), at, fx) : s;
    case 'hiddenDelay':
      return isActive(s) && !s.visible ? fail(s, new HiddenError(), at, fx) : s;
    case 'backoff':
      return s.phase === 'disconnected' && s.waiting === 'backoff' ? tryConnect(s, at, fx) : s;
  }
}

function onVisibility(s: ConnectionState, visible: boolean, at: Moment, fx: Effects): ConnectionState {
  if (visible === s.visible) return s;
  let next: ConnectionState = { ...s, visible };
  if (!visible) {
    if (isActive(next)) fx.push({ type: 'startTimer', name: 'hiddenDelay', delayMs: HIDDEN_DISCONNECT_DELAY_MS });
    return next;
  }
  fx.push({ type: 'cancelTimer', name: 'hiddenDelay' });
  if (next.halt === 'ReauthLimit') next = resume(next, fx);
  const waitsForUs = next.waiting === 'visible' || next.waiting === 'none';
  return next.phase === 'disconnected' && waitsForUs ? tryConnect(next, at, fx) : next;
}

function onNetwork(s: ConnectionState, online: boolean, at: Moment, fx: Effects): ConnectionState {
  if (online === s.networkOnline) return s;
  let next: ConnectionState = { ...s, networkOnline: online };
  if (!online) return next;
  if (next.halt === 'ReauthLimit') next = resume(next, fx);
  if (next.phase === 'disconnected' && next.waiting === 'backoff') {
    fx.push({ type: 'cancelTimer', name: 'backoff' });
    next = { ...next, waiting: 'none' };
  }
  return next.phase === 'disconnected' && next.waiting === 'none' ? tryConnect(next, at, fx) : next;
}

function onReconnect(s: ConnectionState, at: Moment, fx: Effects): ConnectionState {
  if (s.phase !== 'disconnected') return s;
  if (s.halt === 'UpdateNeeded' || s.halt === 'ClientStateNotFound') {
    fx.push({ type: 'log', level: 'info', message: `Not reconnecting: ${s.halt}` });
    return s;
  }
  let next = s.halt === 'ReauthLimit' || s.halt === 'ClientDisconnected' ? resume(s, fx) : s;
  if (next.waiting === 'backoff') fx.push({ type: 'cancelTimer', name: 'backoff' });
  next = { ...next, waiting: 'none' };
  return tryConnect(next, at, fx);
}

function tryConnect(s: ConnectionState, at: Moment, fx: Effects): ConnectionState {
  if (s.phase !== 'disconnected' || s.halt !== null) return s;
  if (!s.visible) return { ...s, waiting: 'visible' };
  const connecting: ConnectionState = { ...s, phase: 'connecting', waiting: 'none', attemptStartedAt: at.nowMs };
  // The timeout covers the whole attempt: a token that never comes must not hang the client either.
  fx.push({ type: 'startTimer', name: 'connectTimeout', delayMs: CONNECT_TIMEOUT_MS });
  if (!connecting.haveToken || connecting.needsFreshToken) {
    const requestID = connecting.tokenRequestID + 1;
    fx.push({ type: 'fetchToken', requestID, fresh: connecting.haveToken });
    return { ...connecting, tokenRequestID: requestID, awaitingToken: true };
  }
  return openSocket(connecting, fx);
}

function openSocket(s: ConnectionState, fx: Effects): ConnectionState {
  const socketID = s.socketID + 1;
  fx.push({ type: 'openSocket', socketID, token: s.token });
  return { ...s, socketID, socketLive: true, wsid: null };
}

/**
 * Ends the current attempt or socket, then decides what comes next from the
 * failure's kind. A connected socket that is lost (a drop) is retried after
 * a jitter under a second; a failed attempt, or an error the server sent,
 * waits out the back-off.
 */
function fail(s: ConnectionState, error: Failure, at: Moment, fx: Effects): ConnectionState {
  const kind = error.kind;
  logFailure(s, error, fx);
  const ended = endSocket(s, error, fx);
  switch (kind) {
    case 'Hidden':
      return { ...ended, waiting: 'visible' };
    case 'VersionNotSupported':
      fx.push({ type: 'updateNeeded' });
      return halt(ended, 'UpdateNeeded', error, fx);
    case 'ClientNotFound': {
      const halted = halt(ended, 'ClientStateNotFound', error, fx);
      fx.push({ type: 'clientGroupUnknown' });
      fx.push({ type: 'clientStateNotFound' });
      return halted;
    }
    case 'ClientStateNotFound':
      fx.push({ type: 'clientStateNotFound' });
      return halt(ended, 'ClientStateNotFound', error, fx);
  }
  if (s.phase === 'connected' && isDrop(error)) {
    return retryAfter({ ...ended, errorCount: 0, authFailures: 0 }, reconnectJitterMs(at.random), at, fx);
  }
  const errorCount = ended.errorCount + 1;
  if (!isAuthErrorKind(kind)) {
    return retryAfter({ ...ended, errorCount, authFailures: 0 }, backoffDelayMs(errorCount), at, fx);
  }
  const authFailures = ended.authFailures + 1;
  if (authFailures > MAX_REAUTH_RETRIES) {
    const limit = new ReauthLimitError(MAX_REAUTH_RETRIES, error as ConnectionError);
    return halt({ ...ended, errorCount, authFailures, needsFreshToken: true }, 'ReauthLimit', limit, fx);
  }
  // The first auth failure retries at once with a fresh token; the ones after it back off.
  const next: ConnectionState = { ...ended, errorCount, authFailures, needsFreshToken: true };
  return retryAfter(next, backoffDelayMs(authFailures - 1), at, fx);
}

/** The end of a connected socket is news (info); a failed attempt to connect is a retry after a failure (warn). */
function logFailure(s: ConnectionState, error: Failure, fx: Effects): void {
  if (s.phase === 'connected' || error.kind === 'Hidden') {
    fx.push({ type: 'log', level: 'info', message: `Disconnected: ${error.kind}`, details: error });
  } else if (s.phase === 'connecting') {
    fx.push({ type: 'log', level: 'warn', message: `Could not connect: ${error.kind}`, details: error });
  }
}

function endSocket(s: ConnectionState, error: Failure, fx: Effects): ConnectionState {
  if (!isActive(s)) return s;
  for (const name of SOCKET_TIMERS) fx.push({ type: 'cancelTimer', name });
  if (s.socketLive) {
    fx.push({ type: 'closeSocket', socketID: s.socketID, reason: error.kind });
    fx.push({ type: 'disconnected', socketID: s.socketID, error });
  }
  if (s.phase === 'connecting') fx.push({ type: 'connectFailed', error });
  const ended: ConnectionState = {
    ...s,
    phase: 'disconnected',
    waiting: 'none',
    socketLive: false,
    awaitingToken: false,
    wsid: null,
    lastDisconnectReason: error.kind,
  };
  return setOnline(ended, false, fx);
}

function retryAfter(s: ConnectionState, delayMs: number, at: Moment, fx: Effects): ConnectionState {
  if (delayMs === 0) return tryConnect(s, at, fx);
  fx.push({ type: 'startTimer', name: 'backoff', delayMs });
  return { ...s, waiting: 'backoff' };
}

function halt(s: ConnectionState, reason: HaltReason, error: Failure | undefined, fx: Effects): ConnectionState {
  if (s.waiting === 'backoff') fx.push({ type: 'cancelTimer', name: 'backoff' });
  fx.push({ type: 'halted', reason, error });
  return { ...s, waiting: 'halted', halt: reason };
}

function resume(s: ConnectionState, fx: Effects): ConnectionState {
  fx.push({ type: 'log', level: 'info', message: `Resuming after ${s.halt}` });
  return { ...s, halt: null, waiting: 'none', authFailures: 0, errorCount: 0 };
}

function close(s: ConnectionState, fx: Effects): ConnectionState {
  const ended = endSocket(s, new ClientClosedError(), fx);
  fx.push({ type: 'cancelTimer', name: 'backoff' });
  fx.push({ type: 'closed' });
  return { ...ended, phase: 'closed', waiting: 'none' };
}

function setOnline(s: ConnectionState, online: boolean, fx: Effects): ConnectionState {
  if (s.online === online) return s;
  fx.push({ type: 'onlineChange', online });
  return { ...s, online };
}

function isActive(s: ConnectionState): boolean {
  return s.phase === 'connecting' || s.phase === 'connected';
}

function isCurrentSocket(s: ConnectionState, socketID: number): boolean {
  return s.socketLive && socketID === s.socketID && isActive(s);
}

function isCurrentTokenRequest(s: ConnectionState, requestID: number): boolean {
  return s.phase === 'connecting' && s.awaitingToken && requestID === s.tokenRequestID;
}
