import { describe, expect, it } from 'vitest';
import { FakeClock } from '../src/connection/testing/fake-clock';
import { ClusterSync } from './cluster-sync';
import { NodeLiveness } from './presence/node-liveness';
import type { StoredEntry } from './storage/types';

/** One room held here with presence; a storage whose beats answer `live` and whose entry reads fail while `failures` lasts. */
function setup() {
  const clock = new FakeClock(0);
  const adopted: StoredEntry[][] = [];
  const warnings: string[] = [];
  let live = new Set(['me', 'other']);
  let failuresLeft = 0;
  const entry: StoredEntry = { key: '_roomsync/presence/c1', json: '{}', version: 1 };
  const room = { roomID: 'r', presence: { adopt: (entries: StoredEntry[]) => adopted.push(entries), rejoin() {} } };
  const ctx = {
    clock,
    timers: clock,
    shuttingDown: false,
    logger: { warn: (message: string) => warnings.push(message) },
    registry: { presence: { nodeID: 'me', liveness: new NodeLiveness() }, heldRooms: () => [room] },
  };
  const storage = {
    beat: async () => live,
    entriesWithPrefix: async () => {
      if (failuresLeft-- > 0) throw new Error('connection terminated');
      return new Map([['r', [entry]]]);
    },
  };
  const sync = new ClusterSync(ctx as never, storage as never, 2000);
  return { sync, adopted, warnings, entry, setLive: (s: Set<string>) => (live = s), failNextReads: (n: number) => (failuresLeft = n) };
}

describe('a node noticing another node gone', () => {
  it('reads the entries again at the next beat when the read after the news failed, then no more', async () => {
    const { sync, adopted, warnings, entry, setLive, failNextReads } = setup();
    await sync.beat();
    adopted.length = 0;
    failNextReads(1);
    setLive(new Set(['me']));
    await sync.beat();
    expect(adopted).toEqual([]);
    expect(warnings).toHaveLength(1);
    await sync.beat();
    expect(adopted).toEqual([[entry]]);
    await sync.beat();
    expect(adopted).toEqual([[entry]]);
  });
});
