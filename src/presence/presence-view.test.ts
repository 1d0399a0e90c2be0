import { describe, expect, it } from 'vitest';
import { presenceEntry } from './presence-entry';
import { buildPresence } from './presence-view';

const self = { clientID: 'a1', userID: 'alice' };

describe('the presence view', () => {
  it('two users in three tabs are three clients and two users', () => {
    const view = buildPresence(
      [presenceEntry('b1', 'bob', null, 'n'), presenceEntry('a2', 'alice', { x: 2 }, 'n'), presenceEntry('a1', 'alice', { x: 1 }, 'n')],
      self,
      undefined,
    );
    expect(view.clients.map((c) => [c.userID, c.clientID, c.isSelf])).toEqual([
      ['alice', 'a1', true],
      ['alice', 'a2', false],
      ['bob', 'b1', false],
    ]);
    expect(view.users.map((u) => [u.userID, u.clients.length, u.isSelf])).toEqual([
      ['alice', 2, true],
      ['bob', 1, false],
    ]);
    expect(view.users[0]!.clients.map((c) => c.state)).toEqual([{ x: 1 }, { x: 2 }]);
  });

  it("shows this client's latest state at once, before the server has it", () => {
    const view = buildPresence([presenceEntry('a1', 'alice', { x: 1 }, 'n'), presenceEntry('b1', 'bob', { x: 9 }, 'n')], self, { x: 5 });
    expect(view.clients.map((c) => c.state)).toEqual([{ x: 5 }, { x: 9 }]);
  });

  it("takes the user id the server gave this client for 'self', not the one it was started with", () => {
    const view = buildPresence([presenceEntry('a1', 'alice@auth', null, 'n'), presenceEntry('a2', 'alice@auth', null, 'n')], self, undefined);
    expect(view.users).toHaveLength(1);
    expect(view.users[0]!.isSelf).toBe(true);
  });

  it('is empty without entries; this client is not listed before the server lists it', () => {
    expect(buildPresence([], self, { x: 1 })).toEqual({ clients: [], users: [] });
  });
});
