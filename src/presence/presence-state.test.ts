import { describe, expect, it } from 'vitest';
import { PRESENCE_STATE_MAX_BYTES } from '../../protocol/presence';
import { PresenceStateError } from './errors';
import { checkPresenceState, presenceStateOfArgs } from './presence-state';

function problemOf(state: unknown): string | undefined {
  try {
    checkPresenceState(state);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(PresenceStateError);
    return (error as PresenceStateError).problem;
  }
}

describe('a presence state', () => {
  it('is copied and frozen, with its JSON text', () => {
    const cursor = { x: 1, y: 2, label: 'Ada' };
    const checked = checkPresenceState(cursor);
    expect(checked.value).toEqual(cursor);
    expect(checked.value).not.toBe(cursor);
    expect(Object.isFrozen(checked.value)).toBe(true);
    expect(checked.json).toBe('{"x":1,"y":2,"label":"Ada"}');
    expect(checkPresenceState(null).json).toBe('null');
  });

  it('that is not JSON is refused as NotJSON', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const state of [undefined, () => 1, Number.NaN, Infinity, cycle, new Date(0), { at: new Map() }, 10n, '\ud800']) {
      expect(problemOf(state)).toBe('NotJSON');
    }
  });

  it('is at most PRESENCE_STATE_MAX_BYTES of UTF-8 JSON; more is refused as TooLarge', () => {
    // '"' + n characters + '"'
    expect(problemOf('a'.repeat(PRESENCE_STATE_MAX_BYTES - 2))).toBeUndefined();
    expect(problemOf('a'.repeat(PRESENCE_STATE_MAX_BYTES - 1))).toBe('TooLarge');
    // é takes two bytes in UTF-8.
    expect(problemOf('é'.repeat(PRESENCE_STATE_MAX_BYTES / 2))).toBe('TooLarge');
    expect(() => checkPresenceState('a'.repeat(PRESENCE_STATE_MAX_BYTES))).toThrow(/at most 2048 bytes/);
  });

  it('comes in the built-in mutation as {state}', () => {
    expect(presenceStateOfArgs({ state: { x: 1 } }).value).toEqual({ x: 1 });
    for (const args of [undefined, null, 1, [], { cursor: 1 }]) expect(() => presenceStateOfArgs(args)).toThrow(PresenceStateError);
  });
});
