import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_REAUTH_RETRIES, RECONNECT_BACKOFF_INITIAL_MS } from '../../protocol/constants';
import { ERROR_KINDS } from '../../protocol/error-kind-list';
import type { ErrorKind } from '../protocol/generated/types';
import { RECONNECT_JITTER_MAX_MS } from './backoff';
import { CloseError, ConnectionError } from './errors';
import type { ConnectionEvent, TimerName } from './events';
import { initialState, type ConnectionState } from './state';
import { transition } from './transition';

/** An event picked at random, made concrete against the current state (current or stale socket/token ids). */
type EventSeed = readonly [kind: number, stale: boolean, flag: boolean, errorKind: ErrorKind, timer: TimerName];

const TIMERS: readonly TimerName[] = ['connectTimeout', 'ping', 'pongDeadline', 'hiddenDelay', 'backoff'];

const seed: fc.Arbitrary<EventSeed> = fc.tuple(
  fc.integer({ min: 0, max: 16 }),
  fc.boolean(),
  fc.boolean(),
  fc.constantFrom(...ERROR_KINDS),
  fc.constantFrom(...TIMERS),
);

/** Timer events come only for pending timers, as in the run loop. */
function concrete(s: ConnectionState, pending: ReadonlySet<TimerName>, [kind, stale, flag, errorKind, timer]: EventSeed): ConnectionEvent {
  const socketID = stale ? Math.max(0, s.socketID - 1) : s.socketID;
  const requestID = stale ? s.tokenRequestID - 1 : s.tokenRequestID;
  switch (kind) {
    case 0: return { type: 'start' };
    case 1: return { type: 'reconnect' };
    case 2: return flag ? { type: 'userDisconnect' } : { type: 'clientStateNotFound' };
    case 3: return { type: 'visibility', visible: flag };
    case 4: return { type: 'network', online: flag };
    case 5: return { type: 'tokenObtained', requestID, token: flag ? 't' : undefined };
    case 6: return { type: 'tokenFailed', requestID, error: new Error('x') };
    case 7: return { type: 'socketCreated', socketID, wsid: 'w' };
    case 8: return { type: 'socketOpen', socketID };
    case 9: return { type: 'socketMessage', socketID, message: ['connected', { wsid: flag ? 'w' : 'other' }] };
    case 10: return { type: 'socketMessage', socketID, message: ['error', errorKind, 'm'] };
    case 11: return { type: 'socketMessage', socketID, message: flag ? ['pong', {}] : ['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [], requestID: 'r' }] };
    case 12: return { type: 'socketClose', socketID, code: 1006, reason: '', wasClean: flag };
    case 13: return { type: 'socketError', socketID };
    case 14: return { type: 'disconnect', error: flag ? new CloseError('AbruptClose') : new ConnectionError('UnexpectedBaseCookie', 'x') };
    case 15: return pending.has(timer) ? { type: 'timer', name: timer } : { type: 'start' };
    default: return flag ? { type: 'close' } : { type: 'start' };
  }
}

describe('transition invariants', () => {
  it('hold over random event sequences', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(seed, { maxLength: 80 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (visible, seeds, draw) => {
        let s = initialState(visible, true);
        const timers = new Set<TimerName>();
        const openSockets = new Set<number>();
        let online = false;
        let lastSocketID = 0;
        for (const event of seeds.map((x) => x)) {
          const next = concrete(s, timers, event);
          if (next.type === 'timer') timers.delete(next.name);
          const result = transition(s, next, 0, () => draw);
          const currentSocketClosed = next.type === 'socketClose' && next.socketID === s.socketID && s.socketLive;
          if (s.phase === 'connected' && s.visible && currentSocketClosed) {
            const reconnects = result.effects.some((e) => e.type === 'openSocket' || e.type === 'fetchToken');
            const soon = result.effects.some((e) => e.type === 'startTimer' && e.name === 'backoff' && e.delayMs < RECONNECT_JITTER_MAX_MS);
            expect(reconnects || soon, 'a lost connected socket is retried within a second').toBe(true);
          }
          for (const effect of result.effects) {
            if (effect.type === 'startTimer' && effect.name === 'backoff' && effect.delayMs < RECONNECT_BACKOFF_INITIAL_MS) {
              expect(effect.delayMs, 'a short wait is a jitter under a second').toBeLessThan(RECONNECT_JITTER_MAX_MS);
              expect(s.phase, 'a short wait only after a connected socket is lost').toBe('connected');
              expect(next.type === 'socketMessage' && next.message[0] === 'error', 'never after an error frame').toBe(false);
            }
            if (effect.type === 'startTimer') timers.add(effect.name);
            if (effect.type === 'cancelTimer') timers.delete(effect.name);
            if (effect.type === 'openSocket') {
              expect(effect.socketID).toBeGreaterThan(lastSocketID);
              lastSocketID = effect.socketID;
              openSockets.add(effect.socketID);
            }
            if (effect.type === 'closeSocket') openSockets.delete(effect.socketID);
            if (effect.type === 'onlineChange') {
              expect(effect.online, 'onOnlineChange only on a change').not.toBe(online);
              online = effect.online;
            }
          }
          if (s.phase === 'disconnected' && result.state.phase === 'connecting') {
            expect(result.state.visible, 'starts connecting only while visible').toBe(true);
          }
          s = result.state;
          expect(online).toBe(s.online);
          expect(s.online).toBe(s.phase === 'connected');
          expect(openSockets.size).toBeLessThanOrEqual(1);
          if (s.phase === 'disconnected' || s.phase === 'closed') {
            expect(openSockets.size, 'no socket left open when disconnected').toBe(0);
            for (const name of timers) expect(name, 'only the back-off runs while disconnected').toBe('backoff');
            expect(timers.has('backoff')).toBe(s.waiting === 'backoff');
          }
          if (s.phase === 'closed') expect(timers.size).toBe(0);
          if (s.phase === 'connected') {
            expect(timers.has('connectTimeout')).toBe(false);
            expect(timers.has('ping') || timers.has('pongDeadline')).toBe(true);
          }
          if (s.phase === 'connecting') expect(timers.has('connectTimeout')).toBe(true);
          expect(s.authFailures).toBeLessThanOrEqual(MAX_REAUTH_RETRIES + 1);
          if (s.halt !== null && s.phase !== 'closed') expect(s.phase === 'disconnected' && s.waiting === 'halted').toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
