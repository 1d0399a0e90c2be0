import { afterEach, describe, expect, it } from 'vitest';
import 'fake-indexeddb/auto';
import { openStore } from '../kv/idb-store';
import { MemoryStore } from '../kv/memory-store';
import { MutationLog, type LoggedMutation } from './mutation-log';

let n = 0;
const names: string[] = [];
afterEach(() => {
  for (const name of names.splice(0)) MemoryStore.drop(name);
});
function memory(): MemoryStore {
  const name = `log-${++n}`;
  names.push(name);
  return new MemoryStore(name);
}

const m = (clientID: string, id: number): LoggedMutation => ({ clientID, id, name: 'put', args: { key: `k${id}`, value: id }, timestamp: id * 10 });

describe('MutationLog', () => {
  it('keeps appended mutations in order, across reopening the store', async () => {
    const log = new MutationLog(memory());
    for (const entry of [m('a', 1), m('a', 2), m('b', 1)]) await log.append(entry);
    const reopened = new MutationLog(new MemoryStore(names.at(-1)!));
    expect(await reopened.entries()).toEqual([m('a', 1), m('a', 2), m('b', 1)]);
  });

  it('removes what is done elsewhere and keeps the rest in order', async () => {
    const log = new MutationLog(memory());
    for (const entry of [m('a', 1), m('b', 1), m('a', 2), m('a', 3), m('b', 2)]) await log.append(entry);
    const acked: Record<string, number> = { a: 2, b: 0 };
    await log.removeWhere((entry) => entry.id <= (acked[entry.clientID] ?? 0));
    expect(await log.entries()).toEqual([m('b', 1), m('a', 3), m('b', 2)]);
    await log.append(m('a', 4));
    expect(await log.entries()).toEqual([m('b', 1), m('a', 3), m('b', 2), m('a', 4)]);
    await log.removeWhere(() => true);
    expect(await log.entries()).toEqual([]);
    await log.append(m('c', 1));
    expect(await log.entries()).toEqual([m('c', 1)]);
  });

  it('appends from concurrent callers without losing one', async () => {
    const log = new MutationLog(memory());
    await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(m('a', i + 1))));
    expect((await log.entries()).map((e) => e.id).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('works on IndexedDB', async () => {
    const name = `idb-log-${++n}`;
    const kv = await openStore(name);
    const log = new MutationLog(kv);
    await log.append(m('a', 1));
    await log.append(m('a', 2));
    await kv.close();
    const again = await openStore(name);
    expect(await new MutationLog(again).entries()).toEqual([m('a', 1), m('a', 2)]);
    await again.close();
  });
});
