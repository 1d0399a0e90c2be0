import { describe, expect, it } from 'vitest';
import { CONNECT_TIMEOUT_MS, PING_INTERVAL_MS } from '../../protocol/constants';
import type { ConnectionEffect } from './effects';
import type { ConnectionEvent } from './events';
import { initialState, type ConnectionState } from './state';
import { transition } from './transition';

function run(events: readonly ConnectionEvent[], state: ConnectionState = initialState(true, true)) {
  const effects: ConnectionEffect[][] = [];
  for (const event of events) {
    const result = transition(state, event, 0);
    state = result.state;
    effects.push([...result.effects]);
  }
  return { state, effects };
}

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
      expect(transition(closed, event, 0)).toEqual({ state: closed, effects: [] });
    }
  });
});
