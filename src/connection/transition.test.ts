import { describe, expect, it } from 'vitest';
import { CONNECT_TIMEOUT_MS, PING_INTERVAL_MS, RECONNECT_BACKOFF_INITIAL_MS } from '../../protocol/constants';
import type { ConnectionEffect } from './effects';
import type { ConnectionEvent } from './events';
import { initialState, type ConnectionState } from './state';
import { transition } from './transition';

function run(events: readonly ConnectionEvent[], state: ConnectionState = initialState(true, true)) {
  const effects: ConnectionEffect[][] = [];
  for (const event of events) {
    const result = transition(state, event, 0, () => 0);
    state = result.state;
    effects.push([...result.effects]);
  }
  return { state, effects };
}

/** Started, token obtained, socket 1 connected. */
const connectedState = () =>
  run([
    { type: 'start' },
    { type: 'tokenObtained', requestID: 1, token: 't' },
    { type: 'socketMessage', socketID: 1, message: ['connected', { wsid: 'w' }] },
  ]).state;

const types = (effects: readonly ConnectionEffect[]) => effects.map((e) => (e.type === 'startTimer' || e.type === 'cancelTimer' ? `${e.type}:${e.name}` : e.type));

describe('transition (pure)', () => {
  it('start → fetch the token → open the socket with a connect timeout → connected with a ping timer', () => {
    const { state, effects } = run([
      { type: 'start' },
      { type: 'tokenObtained', requestID: 1, token: 't' },
      { type: 'socketCreated', socketID: 1, wsid: 'w' },
      { type: 'socketMessage', socketID: 1, message: ['connected', { wsid: 'w' }] },
    ]);
    expect(effects.map(types)).toEqual([
      ['startTimer:connectTimeout', 'fetchToken'],
      ['openSocket'],
      [],
      ['cancelTimer:connectTimeout', 'connected', 'log', 'startTimer:ping', 'onlineChange'],
    ]);
    expect(effects[0]![0]).toEqual({ type: 'startTimer', name: 'connectTimeout', delayMs: CONNECT_TIMEOUT_MS });
    expect(effects[3]![3]).toEqual({ type: 'startTimer', name: 'ping', delayMs: PING_INTERVAL_MS });
    expect(state.phase).toBe('connected');
    expect(state.online).toBe(true);
  });

  it('a connected socket that closes: reconnect after the jitter drawn from the random source', () => {
    const connected = connectedState();
    const closed = transition(connected, { type: 'socketClose', socketID: 1, code: 1001, reason: 'going away', wasClean: true }, 0, () => 0.4321);
    expect(types(closed.effects)).toEqual([
      'log',
      'cancelTimer:connectTimeout',
      'cancelTimer:ping',
      'cancelTimer:pongDeadline',
      'cancelTimer:hiddenDelay',
      'closeSocket',
      'disconnected',
      'onlineChange',
      'startTimer:backoff',
    ]);
    expect(closed.effects[0]).toMatchObject({ level: 'info', message: 'Disconnected: CleanClose' });
    expect(closed.effects.at(-1)).toEqual({ type: 'startTimer', name: 'backoff', delayMs: 432 });
    expect(closed.state).toMatchObject({ phase: 'disconnected', waiting: 'backoff', errorCount: 0 });
  });

  it('an error frame after connected, and a failed attempt: the 5 s back-off, logged as info and warn', () => {
    const connected = connectedState();
    const refused = transition(connected, { type: 'socketMessage', socketID: 1, message: ['error', 'RoomClosed', 'bye'] }, 0, () => 0.4321);
    expect(refused.effects[0]).toMatchObject({ level: 'info', message: 'Disconnected: RoomClosed' });
    expect(refused.effects.at(-1)).toEqual({ type: 'startTimer', name: 'backoff', delayMs: RECONNECT_BACKOFF_INITIAL_MS });
    const retrying = run([{ type: 'timer', name: 'backoff' }], refused.state).state;
    const failed = transition(retrying, { type: 'socketClose', socketID: 2, code: 1006, reason: '', wasClean: false }, 0, () => 0.4321);
    expect(failed.effects[0]).toMatchObject({ level: 'warn', message: 'Could not connect: AbruptClose' });
    expect(failed.effects.at(-1)).toEqual({ type: 'startTimer', name: 'backoff', delayMs: 2 * RECONNECT_BACKOFF_INITIAL_MS });
  });

  it('ignores events of a socket that is no longer current', () => {
    const connecting = run([
      { type: 'start' },
      { type: 'tokenObtained', requestID: 1, token: undefined },
      { type: 'socketClose', socketID: 1, code: 1006, reason: '', wasClean: false },
    ]).state;
    const { state, effects } = run(
      [
        { type: 'socketMessage', socketID: 1, message: ['connected', { wsid: 'w' }] },
        { type: 'tokenObtained', requestID: 1, token: 'late' },
      ],
      connecting,
    );
    expect(effects).toEqual([[], []]);
    expect(state).toBe(connecting);
  });

  it('is inert once closed', () => {
    const closed = run([{ type: 'start' }, { type: 'close' }]).state;
    expect(closed.phase).toBe('closed');
    for (const event of [{ type: 'start' }, { type: 'reconnect' }, { type: 'visibility', visible: false }, { type: 'timer', name: 'backoff' }] as const) {
      expect(transition(closed, event, 0, () => 0)).toEqual({ state: closed, effects: [] });
    }
  });
});
