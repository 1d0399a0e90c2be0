import { describe, expect, it } from 'vitest';
import { PRESENCE_MUTATION_NAME } from '../../protocol/presence';
import { PresenceStateError } from '../../src/presence/errors';
import { presenceEntry, presenceKey } from '../../src/presence/presence-entry';
import type { Mutation } from '../../src/protocol';
import { BatchWriter } from '../batch-writer';
import { RoomData } from '../room-data';
import { setPresenceNatively, writePresenceChanges } from './presence-writes';

const ada = { userID: 'ada', claims: {} };

function room() {
  const data = new RoomData(0);
  const writer = () => new BatchWriter(data, data.version + 1);
  const entry = (clientID: string) => data.get(presenceKey(clientID));
  return { data, writer, entry };
}

function setPresence(clientID: string, args: unknown): Mutation {
  return { id: 1, clientID, name: PRESENCE_MUTATION_NAME, args: args as Mutation['args'], timestamp: 0 };
}

describe('presence writes on the server', () => {
  it('a join writes the entry with the auth user and the node, state null', () => {
    const { writer, entry } = room();
    expect(writePresenceChanges(writer(), [{ kind: 'join', clientID: 'c1', userID: 'ada', node: 'n1' }])).toBe(true);
    expect(entry('c1')).toEqual(presenceEntry('c1', 'ada', null, 'n1'));
  });

  it('a join of a client still listed by the same node writes nothing; through another node it takes the entry over, keeping the state', () => {
    const { writer, entry } = room();
    writePresenceChanges(writer(), [{ kind: 'join', clientID: 'c1', userID: 'ada', node: 'n1' }]);
    setPresenceNatively(writer(), setPresence('c1', { state: { x: 1 } }), ada);
    expect(writePresenceChanges(writer(), [{ kind: 'join', clientID: 'c1', userID: 'ada', node: 'n1' }])).toBe(false);
    expect(writePresenceChanges(writer(), [{ kind: 'join', clientID: 'c1', userID: 'ada', node: 'n2' }])).toBe(true);
    expect(entry('c1')).toEqual(presenceEntry('c1', 'ada', { x: 1 }, 'n2'));
  });

  it('a leave removes the entry only while it names the leaving node', () => {
    const { writer, entry } = room();
    writePresenceChanges(writer(), [{ kind: 'join', clientID: 'c1', userID: 'ada', node: 'n2' }]);
    expect(writePresenceChanges(writer(), [{ kind: 'leave', clientID: 'c1', node: 'n1' }])).toBe(false);
    expect(entry('c1')).toBeDefined();
    expect(writePresenceChanges(writer(), [{ kind: 'leave', clientID: 'c1', node: 'n2' }])).toBe(true);
    expect(entry('c1')).toBeUndefined();
    expect(writePresenceChanges(writer(), [{ kind: 'leave', clientID: 'c1', node: 'n2' }])).toBe(false);
  });

  it('the built-in mutation sets the state with the user id of the auth, never of the args', () => {
    const { writer, entry } = room();
    writePresenceChanges(writer(), [{ kind: 'join', clientID: 'c1', userID: 'ada', node: 'n1' }]);
    setPresenceNatively(writer(), setPresence('c1', { state: { x: 1 }, userID: 'mallory' }), ada);
    expect(entry('c1')).toEqual(presenceEntry('c1', 'ada', { x: 1 }, 'n1'));
  });

  it('the built-in mutation of a client that is not present writes nothing (a closed tab pushed by another)', () => {
    const { writer, data } = room();
    setPresenceNatively(writer(), setPresence('gone', { state: { x: 1 } }), ada);
    expect(data.liveCount).toBe(0);
  });

  it('the built-in mutation refuses args that are not {state} or a state too large, with PresenceStateError', () => {
    const { writer } = room();
    writePresenceChanges(writer(), [{ kind: 'join', clientID: 'c1', userID: 'ada', node: 'n1' }]);
    expect(() => setPresenceNatively(writer(), setPresence('c1', { cursor: 1 }), ada)).toThrow(PresenceStateError);
    expect(() => setPresenceNatively(writer(), setPresence('c1', { state: 'x'.repeat(5000) }), ada)).toThrow(PresenceStateError);
  });
});
