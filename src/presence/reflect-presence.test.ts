import { afterEach, describe, expect, it } from 'vitest';
import { MemoryKvProvider } from '../kv/memory-provider';
import { Reflect } from '../reflect';
import { PresenceStateError, ReservedMutatorNameError } from './errors';
import type { Presence } from './presence-view';

const clients: Reflect[] = [];
afterEach(async () => {
  for (const r of clients.splice(0)) await r.close();
});

let n = 0;
function local(mutators = {}) {
  const r = new Reflect({ userID: 'ada', roomID: 'room', socketOrigin: null, mutators, logSinks: [], kvStore: new MemoryKvProvider(`reflect-presence-${++n}`) });
  clients.push(r);
  return r;
}

describe('presence on a client', () => {
  it('without a server nobody is listed, not even this client', async () => {
    const r = local();
    r.setPresence({ x: 1 });
    const seen = await new Promise<Presence>((resolve) => r.subscribeToPresence(resolve));
    expect(seen).toEqual({ clients: [], users: [] });
  });

  it('refuses a state that is not JSON or too large, at once', () => {
    const r = local();
    expect(() => r.setPresence(undefined as never)).toThrow(PresenceStateError);
    expect(() => r.setPresence('x'.repeat(10_000))).toThrow(/at most 2048 bytes/);
  });

  it('refuses app mutators under the reserved prefix', () => {
    expect(() => local({ '_roomsync/setPresence': async () => {} })).toThrow(ReservedMutatorNameError);
  });

  it('tabs with the same app mutators stay in one client group (every build registers the built-in mutator alike)', async () => {
    const kvStore = new MemoryKvProvider('reflect-presence-tabs');
    const open = () => {
      const r = new Reflect({ userID: 'ada', roomID: 'tabs', socketOrigin: null, mutators: { a: async () => {} }, logSinks: [], kvStore });
      clients.push(r);
      return r;
    };
    const [one, two] = [open(), open()];
    expect(await two.clientGroupID).toBe(await one.clientGroupID);
  });
});
