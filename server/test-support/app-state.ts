import { RESERVED_KEY_PREFIX } from '../../protocol/presence';
import type { TestClient } from './test-client';

/** The client's data, without the keys the server keeps for itself (presence: not what a test's mutations wrote). */
export function appState(c: TestClient): Record<string, unknown> {
  return Object.fromEntries([...c.state].filter(([k]) => !k.startsWith(RESERVED_KEY_PREFIX)));
}

/** True when the client's data is exactly `expected` (key order aside). */
export function hasAppState(c: TestClient, expected: Readonly<Record<string, unknown>>): boolean {
  const state = appState(c);
  const keys = Object.keys(expected);
  return Object.keys(state).length === keys.length && keys.every((k) => Object.hasOwn(state, k) && JSON.stringify(state[k]) === JSON.stringify(expected[k]));
}
