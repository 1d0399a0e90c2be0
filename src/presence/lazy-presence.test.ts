/**
 * A client loads its presence code (presence-client.ts, a lazy chunk in a
 * browser bundle) at the first setPresence or subscribeToPresence, not
 * before: a page that mutates and queries without presence never loads it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WriteTransaction } from '../db/transaction-types';
import { MemoryKvProvider } from '../kv/memory-provider';
import { Reflect } from '../reflect';
import { PresenceStateError } from './errors';
import type { Presence } from './presence-view';

const loads = vi.hoisted(() => ({ presenceClient: 0 }));
vi.mock('./presence-client', async (importOriginal) => {
  loads.presenceClient++;
  return importOriginal();
});

const clients: Reflect[] = [];
afterEach(async () => {
  for (const r of clients.splice(0)) await r.close();
});

const mutators = {
  async put(tx: WriteTransaction, { key, value }: { key: string; value: string }) {
    await tx.put(key, value);
  },
};

describe('presence code, loaded lazily', () => {
  it('is not loaded by mutate, query and subscribe; the first subscribeToPresence loads it, and a bad state is refused at once', async () => {
    const r = new Reflect({ userID: 'ada', roomID: 'room', socketOrigin: null, mutators, logSinks: [], kvStore: new MemoryKvProvider('lazy-presence') });
    clients.push(r);
    await r.mutate.put({ key: 'a', value: 'x' });
    expect(await r.query((tx) => tx.get('a'))).toBe('x');
    await new Promise<void>((resolve) => r.subscribe((tx) => tx.get('a'), () => resolve()));
    expect(() => r.setPresence(undefined as never)).toThrow(PresenceStateError);
    expect(loads.presenceClient).toBe(0);

    r.setPresence({ cursor: 1 });
    const seen = await new Promise<Presence>((resolve) => r.subscribeToPresence(resolve));
    expect(seen).toEqual({ clients: [], users: [] });
    expect(loads.presenceClient).toBe(1);
  });
});
