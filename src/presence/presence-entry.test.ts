import { describe, expect, it } from 'vitest';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { PRESENCE_KEY_PREFIX } from '../../protocol/presence';
import { entryWithState, presenceEntry, presenceKey, readPresenceEntry } from './presence-entry';

describe('presence entries', () => {
  it('live at PRESENCE_KEY_PREFIX + clientID', () => {
    expect(presenceKey('c1')).toBe(`${PRESENCE_KEY_PREFIX}c1`);
    expect(readPresenceEntry(presenceKey('c1'), { clientID: 'c1', userID: 'ada', state: { x: 1 }, node: 'n1' })).toEqual(presenceEntry('c1', 'ada', { x: 1 }, 'n1'));
  });

  it('are read defensively: anything else under the prefix is not an entry', () => {
    const key = presenceKey('c1');
    expect(readPresenceEntry('todo/c1', { clientID: 'c1', userID: 'ada', state: null, node: 'n1' })).toBeUndefined();
    const notEntries: ReadonlyJSONValue[] = [null, 1, 'x', [], {}, { clientID: 'c2', userID: 'ada', node: 'n1' }, { clientID: 'c1', userID: 7, node: 'n1' }, { clientID: 'c1', userID: 'ada' }];
    for (const value of notEntries) expect(readPresenceEntry(key, value)).toBeUndefined();
    expect(readPresenceEntry(key, { clientID: 'c1', userID: 'ada', node: 'n1' })?.state).toBeNull();
  });

  it('take a new state, and the user id when given; unchanged or missing entries give nothing to write', () => {
    const entry = presenceEntry('c1', 'ada', { x: 1 }, 'n1');
    expect(entryWithState(entry, { x: 2 })).toEqual(presenceEntry('c1', 'ada', { x: 2 }, 'n1'));
    expect(entryWithState(entry, { x: 1 })).toBeUndefined();
    expect(entryWithState(entry, { x: 1 }, 'bob')).toEqual(presenceEntry('c1', 'bob', { x: 1 }, 'n1'));
    expect(entryWithState(undefined, { x: 2 }, 'ada')).toBeUndefined();
  });
});
